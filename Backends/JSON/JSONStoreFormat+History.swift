import Foundation
import StrataCore

/// The `history` member: the document's transactions, rewritten with every save, so a save
/// and its history reach the disk in the same atomic replace.
///
/// ```json
/// "history": {"nextTransaction": 4, "horizon": 1, "transactions": [
///   {"id": 2, "timestamp": "2026-11-22T09:30:00.5Z", "author": "widget", "bundle": "app", "process": "4242",
///    "changes": [["i", "Trip", 1, 100], ["u", "Trip", 7, 1, ["name"]], ["d", "Trip", 9, 1, [], {"code": {"string": "K"}}]]}]}
/// ```
/// `horizon` is the highest transaction identifier ever deleted: a token before it has expired.
extension JSONStoreFormat {
    /// Adds the `history` member for `log` to `root`; nothing when the log is empty and never pruned.
    ///
    /// - Throws: An encoding error.
    static func writeHistory(_ log: HistoryLog, to root: JSONTextWriter.Node, in document: JSONTextWriter) throws {
        guard !log.records.isEmpty || log.nextTransaction > 1 else { return }
        let history = try document.add(.object, forKey: document.key("history"), to: root)
        try document.add(.int(log.nextTransaction), forKey: document.key("nextTransaction"), to: history)
        try document.add(.int(log.horizon), forKey: document.key("horizon"), to: history)
        let transactions = try document.add(.array, forKey: document.key("transactions"), to: history)
        let keys = (id: document.key("id"), timestamp: document.key("timestamp"), author: document.key("author"),
            bundle: document.key("bundle"), process: document.key("process"), changes: document.key("changes"))
        for record in log.records {
            let object = try document.append(.object, to: transactions)
            try document.add(.int(record.transactionIdentifier), forKey: keys.id, to: object)
            let timestamp = JSONTimestamp.string(for: record.timestamp) ?? "\(record.timestamp.timeIntervalSinceReferenceDate)"
            try document.add(.string(timestamp), forKey: keys.timestamp, to: object)
            try document.add(record.author.map { .string($0) } ?? .null, forKey: keys.author, to: object)
            try document.add(.string(record.bundleIdentifier), forKey: keys.bundle, to: object)
            try document.add(.string(record.processIdentifier), forKey: keys.process, to: object)
            try document.add(.json(Array(try HistoryRecord.encode(record.runs).utf8)), forKey: keys.changes, to: object)
        }
    }

    /// The history a document records; an empty log when it has no `history` member.
    ///
    /// - Throws: ``JSONStoreError/wrongShape(file:path:reason:)`` naming the first value that does not fit.
    static func readHistory(_ document: JSONDocument, storeIdentifier: String) throws -> HistoryLog {
        guard let history = document.rootNode.member("history") else { return HistoryLog() }
        func wrong(_ path: String, _ reason: String) -> JSONStoreError {
            .wrongShape(file: document.file, path: "history\(path.isEmpty ? "" : ".")\(path)", reason: reason)
        }
        guard history.isObject else { throw wrong("", "expected an object, found \(history.typeName)") }
        guard let next = history.member("nextTransaction")?.int64, next >= 1 else { throw wrong("nextTransaction", "expected a positive integer") }
        guard let horizon = history.member("horizon")?.int64, horizon >= 0 else { throw wrong("horizon", "expected an integer of at least 0") }
        guard let transactions = history.member("transactions"), transactions.isArray else {
            throw wrong("transactions", "expected an array of transactions")
        }
        var records: [HistoryRecord] = []
        records.reserveCapacity(transactions.count)
        for index in 0..<transactions.count {
            let object = transactions.element(at: index)
            let path = "transactions[\(index)]"
            guard object.isObject else { throw wrong(path, "expected a transaction object, found \(object.typeName)") }
            guard let id = object.member("id")?.int64, id >= 1, id < next else {
                throw wrong("\(path).id", "expected a positive integer below nextTransaction")
            }
            guard let text = object.member("timestamp")?.string,
                let timestamp = JSONTimestamp.date(from: text) ?? Double(text).map(Date.init(timeIntervalSinceReferenceDate:))
            else { throw wrong("\(path).timestamp", "expected an ISO 8601 timestamp") }
            let authorNode = object.member("author")
            guard authorNode == nil || authorNode!.isNull || authorNode!.isString else { throw wrong("\(path).author", "expected a string or null") }
            guard let changes = object.member("changes"), let runs = try? HistoryRecord.decodeRuns(String(decoding: changes.plainText, as: UTF8.self)) else {
                throw wrong("\(path).changes", "expected the transaction's changes as arrays such as [\"i\", \"Trip\", 1, 100]")
            }
            records.append(HistoryRecord(
                transactionIdentifier: id, timestamp: timestamp, author: authorNode?.string, storeIdentifier: storeIdentifier,
                bundleIdentifier: object.member("bundle")?.string ?? "", processIdentifier: object.member("process")?.string ?? "", runs: runs))
        }
        return HistoryLog(records: records, nextTransaction: next, horizon: horizon)
    }
}

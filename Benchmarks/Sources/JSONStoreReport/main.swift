// Measures saving and reloading N simple models through the json-c JSONStore, through a
// store written like Apple's WWDC24 sample (JSONEncoder/JSONDecoder of [DefaultSnapshot]),
// and encoding/decoding the same records as plain Codable structs with Foundation.
// Usage: JSONStoreReport [count] runs every mode, each in its own process, and prints the
// comparison; JSONStoreReport (jsonc|sample|memory|codable) [count] runs one mode.
import Foundation
import StrataCore
import StrataJSON
import StrataMemory

@Model final class Record {
    var name: String
    var count: Int
    var score: Double
    var created: Date
    var done: Bool

    init(name: String, count: Int, score: Double, created: Date, done: Bool) {
        self.name = name
        self.count = count
        self.score = score
        self.created = created
        self.done = done
    }
}

struct RecordValue: Codable {
    var name: String
    var count: Int
    var score: Double
    var created: Date
    var done: Bool
}

func values(_ count: Int) -> [RecordValue] {
    (0..<count).map { i in
        RecordValue(name: "Record \(i)", count: i, score: Double(i) * 0.37, created: Date(timeIntervalSince1970: 1_700_000_000 + Double(i) * 0.25), done: i % 2 == 0)
    }
}

/// Peak resident memory of this process, from /proc (getrusage would carry a parent's peak into a child).
func peakRSSMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }
    return kilobytes / 1024
}

func time(_ label: String, _ body: () throws -> Void) rethrows {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print(String(format: "%@: %.3f s", label, seconds))
}

let arguments = CommandLine.arguments
let modes = ["jsonc", "sample", "memory", "codable"]
if arguments.count < 2 || !modes.contains(arguments[1]) {
    let count = arguments.count > 1 ? (Int(arguments[1]) ?? 100_000) : 100_000
    try JSONReport.run(modes: modes, count: count)
    exit(0)
}
let mode = arguments[1]
let count = arguments.count > 2 ? Int(arguments[2])! : 100_000
let folder = FileManager.default.temporaryDirectory.appending(path: "jsonstore-measure-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let url = folder.appending(path: "records.json")
let schema = Schema([Record.self])
func configuration() -> any DataStoreConfiguration {
    switch mode {
    case "jsonc": JSONStoreConfiguration(schema: schema, url: url)
    case "memory": MemoryStoreConfiguration(name: "memory", schema: schema)
    default: SampleStoreConfiguration(name: "sample", schema: schema, fileURL: url)
    }
}

print("mode \(mode), \(count) records")
switch mode {
case "jsonc", "sample", "memory":
    let records = values(count)
    var container = try ModelContainer(for: schema, configurations: configuration())
    let context = ModelContext(container)
    time("insert") {
        for value in records {
            context.insert(Record(name: value.name, count: value.count, score: value.score, created: value.created, done: value.done))
        }
    }
    try time("save") { try context.save() }
    if mode == "jsonc" {
        try time("JSONStore.init alone (read + parse + snapshots)") {
            _ = try JSONStore(JSONStoreConfiguration(schema: schema, url: url), migrationPlan: nil)
        }
    }
    if mode != "memory" {
        try time("open (reload)") { container = try ModelContainer(for: schema, configurations: configuration()) }
    }
    try time("fetch all") {
        let fetched = try ModelContext(container).fetch(FetchDescriptor<Record>())
        precondition(fetched.count == count)
        precondition(fetched.reduce(0) { $0 + $1.count } == records.reduce(0) { $0 + $1.count })
    }
case "codable":
    let records = values(count)
    try time("encode + write") {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted]
        try encoder.encode(records).write(to: url)
    }
    try time("read + decode") {
        let decoded = try JSONDecoder().decode([RecordValue].self, from: Data(contentsOf: url))
        precondition(decoded.count == count)
    }
default:
    fatalError("mode is jsonc, sample or codable")
}
let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
print(String(format: "file: %.1f MB, peak RSS: %.0f MB", Double(size) / 1e6, peakRSSMegabytes()))

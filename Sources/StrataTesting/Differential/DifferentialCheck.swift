import Foundation
import StrataCore
import Testing

/// Random predicates and sorts, run by a store and by Foundation, which must agree exactly.
///
/// Each seed fills a container with awkward values (canonically equivalent strings in
/// composed and decomposed form, case and diacritic variants, NUL, a byte-order mark,
/// emoji, `nil`, NaN, ±infinity, -0.0, the extremes of `Int` and `Date`), links them to
/// origins (to-one) and tags (to-many), then draws predicates from every construct Strata's
/// translator accepts, through both relationships, and sorts over every sortable attribute. Foundation is the oracle: `Predicate.evaluate` on models that were
/// never saved, and `sorted(using:)`. A store may hand a step back to the core
/// (``DataStoreError/preferInMemoryFilter``); it may never answer differently.
///
/// ```swift
/// @Test(arguments: DifferentialCheck.seeds)
/// func agreesWithFoundation(seed: UInt64) throws {
///     try DifferentialCheck.run(seed: seed) { schema, name in MemoryStoreConfiguration(name: name, schema: schema) }
/// }
/// ```
public enum DifferentialCheck {
    /// The seeds a test runs: `1...3`, or `1...N` when `STRATA_DIFFERENTIAL_SEEDS` is `N` (`make soak` sets it).
    public static var seeds: [UInt64] {
        let count = ProcessInfo.processInfo.environment["STRATA_DIFFERENTIAL_SEEDS"].flatMap(Int.init) ?? 3
        return (1...max(1, count)).map(UInt64.init)
    }

    /// Runs `predicates` random predicates and `sorts` random sorts for `seed` against the
    /// store `makeConfiguration` opens, recording each disagreement as a Swift Testing issue.
    ///
    /// An issue names the seed, the predicate or sort, and the models only one side selected.
    /// - Throws: What opening the container or saving the data throws.
    public static func run(
        seed: UInt64, predicates: Int = 150, sorts: Int = 40, makeConfiguration: StoreConformance.MakeConfiguration
    ) throws {
        var random = SeededGenerator(seed: seed)
        var strings: [String] = []
        let origins = (0..<5).map { _ in OddityData.lawfulString(&strings) { OddityData.string(using: &random) } }
        let records = OddityData.records(count: 48, origins: origins.count, strings: &strings, using: &random)
        let schema = Schema([Oddity.self, OddityOrigin.self, OddityTag.self])
        let name = "differential-\(seed)-\(UUID().uuidString.lowercased())"
        let container = try ModelContainer(for: schema, configurations: [makeConfiguration(schema, name)])
        let writer = ModelContext(container)
        for model in OddityData.graph(records, origins: origins) { writer.insert(model) }
        try writer.save()

        // The oracle's models were never saved: what the store holds cannot sway the answer.
        let oracle = OddityData.graph(records, origins: origins)
        let context = ModelContext(container)
        var maker = PredicateMaker(random: random, strings: strings)
        try #require(maker.strings.count > 1, "seed \(seed) made no strings")
        for _ in 0..<predicates {
            let (predicate, text) = maker.predicate()
            let expected = try oracle.filter { try predicate.evaluate($0) }.map(\.key).sorted()
            let descriptor = FetchDescriptor<Oddity>(predicate: predicate)
            do {
                let found = try context.fetch(descriptor).map(\.key).sorted()
                if found != expected {
                    Issue.record(Comment(rawValue: mismatch(seed: seed, text, expected: expected, found: found, records: records)))
                }
                let count = try context.fetchCount(descriptor)
                #expect(count == expected.count, "seed \(seed): fetchCount of \(text) is \(count), Foundation selects \(expected.count)")
            } catch {
                Issue.record(error, "seed \(seed): fetching \(text) failed")
            }
        }
        for _ in 0..<sorts {
            let (sortBy, text) = maker.sort()
            let filter = maker.random.below(3) == 0 ? maker.predicate() : nil
            let description = text + (filter.map { " where \($0.1)" } ?? "")
            let selected = try filter.map { filter in try oracle.filter { try filter.0.evaluate($0) } } ?? oracle
            let expected = selected.sorted(using: sortBy).map(\.key)
            do {
                let found = try context.fetch(FetchDescriptor(predicate: filter?.0, sortBy: sortBy)).map(\.key)
                if found != expected {
                    let first = zip(expected, found).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(expected.count, found.count)
                    func around(_ keys: [Int]) -> String {
                        keys[min(first, keys.count)..<min(first + 3, keys.count)].map { records[$0].summary }.joined(separator: "\n    ")
                    }
                    Issue.record(Comment(rawValue: """
                        seed \(seed): sorting by \(description) orders differently from Foundation from position \(first) on
                          Foundation:
                            \(around(expected))
                          store:
                            \(around(found))
                        """))
                }
            } catch {
                Issue.record(error, "seed \(seed): fetching sorted by \(description) failed")
            }
        }
    }

    private static func mismatch(seed: UInt64, _ text: String, expected: [Int], found: [Int], records: [OddityData]) -> String {
        let missing = Set(expected).subtracting(found).sorted().map { records[$0].summary }
        let extra = Set(found).subtracting(expected).sorted().map { records[$0].summary }
        return """
            seed \(seed): the store and Foundation select different models for \(text)
              only Foundation: \(missing)
              only the store:  \(extra)
            """
    }
}

// MARK: The data

/// One generated model's values, kept apart from any context.
struct OddityData {
    var key: Int
    var text: String
    var label: String?
    var number: Int
    var step: Int
    var real: Double
    var amount: Double?
    var when: Date
    var flag: Bool
    /// The index of the model's origin, if it has one.
    var origin: Int?
    /// The model's tags: a word and a weight each.
    var tags: [(word: String, weight: Int)]

    /// Models for `records`, unsaved, linked to new origins named `origins` and to new tags.
    static func graph(_ records: [OddityData], origins: [String]) -> [Oddity] {
        let originModels = origins.map(OddityOrigin.init(name:))
        return records.map { record in
            let model = Oddity(
                key: record.key, text: record.text, label: record.label, number: record.number, step: record.step,
                real: record.real, amount: record.amount, when: record.when, flag: record.flag)
            model.origin = record.origin.map { originModels[$0] }
            model.tags = record.tags.map { OddityTag(word: $0.word, weight: $0.weight) }
            return model
        }
    }

    /// The values, with every string's Unicode scalars spelled out, for failure reports.
    var summary: String {
        "#\(key) text \(Self.spelled(text)) label \(label.map(Self.spelled) ?? "nil") number \(number) step \(step) "
            + "real \(real) amount \(amount.map { "\($0)" } ?? "nil") when \(when.timeIntervalSinceReferenceDate) flag \(flag) "
            + "origin \(origin.map { "#\($0)" } ?? "nil") tags \(tags.map { "\(Self.spelled($0.word)):\($0.weight)" })"
    }

    /// `"a\u{308}b"` as `"a" U+0308 "b"`, so that look-alikes can be told apart in a report.
    static func spelled(_ string: String) -> String {
        "\"" + string.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined() + "\""
    }

    /// Pieces strings are made of: look-alikes that Swift equates or orders together, case
    /// and diacritic variants, control characters, emoji and scripts with special casing.
    static let atoms: [String] = [
        "a", "A", "b", "B", "ab", "Abc", "z", "Z", "\u{E4}", "a\u{308}", "\u{C4}", "A\u{308}", "e", "E", "\u{E9}", "e\u{301}",
        "\u{C9}", "E\u{301}", "\u{DF}", "ss", "SS", "stra\u{DF}e", "Strasse", "\u{0}", "\u{FEFF}", "\u{1F44D}",
        "\u{1F44D}\u{1F3FD}", "\u{1F1E9}\u{1F1EA}", "\u{C5}", "\u{212B}", "A\u{30A}", "\r\n", "\r", "\n", " ", "10", "9",
        "\u{3C3}", "\u{3A3}", "\u{130}", "i", "\u{FB01}", "\u{1E69}", "s\u{323}\u{307}", "s\u{307}\u{323}", "\u{65E5}",
    ]

    static let integers: [Int] = [.min, .min + 1, -1_000_000, -1, 0, 1, 2, 42, 1_000_000, .max - 1, .max]
    static let doubles: [Double] = [
        0, -0.0, 1, -1, 1.5, -2.5, 0.1, .infinity, -.infinity, .nan, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        .leastNonzeroMagnitude, 1e-300,
    ]
    static let dates: [Date] = [
        .distantPast, .distantFuture, Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -1),
        Date(timeIntervalSinceReferenceDate: 0.001), Date(timeIntervalSinceReferenceDate: 700_000_000.5),
        Date(timeIntervalSince1970: 0), Date(timeIntervalSinceReferenceDate: 1e9),
    ]

    static func string(using random: inout SeededGenerator) -> String {
        if random.below(8) == 0 { return "" }
        return (0...random.below(3)).map { _ in atoms.randomElement(using: &random)! }.joined()
    }

    /// Whether Swift's `<` and `==` keep Comparable's laws for `a` and `b`: exactly one of
    /// `a < b`, `b < a`, `a == b` holds, and each answers as for the strings' NFC forms, which
    /// `==` equates with them.
    ///
    /// The standard library of Swift 6.3 breaks them where the canonical form of one string is
    /// a prefix of the other's and the shorter is not in NFC: `"A\u{308}" < "\u{C4}e"` and its
    /// reverse are both `false`. Foundation's sort then has no defined answer to check a store
    /// against, so the generated data and constants avoid such pairs.
    static func lawful(_ a: String, _ b: String) -> Bool {
        func answers(_ x: String, _ y: String) -> [Bool] { [x < y, y < x, x == y] }
        let direct = answers(a, b)
        return direct.filter { $0 }.count == 1
            && direct == answers(a.precomposedStringWithCanonicalMapping, b.precomposedStringWithCanonicalMapping)
    }

    /// A string drawn by `draw` that is ``lawful(_:_:)`` with every string of `others`, which it joins.
    static func lawfulString(_ others: inout [String], _ draw: () -> String) -> String {
        while true {
            let candidate = draw()
            if others.allSatisfy({ lawful(candidate, $0) }) {
                others.append(candidate)
                return candidate
            }
        }
    }

    /// `count` records whose strings are ``lawful(_:_:)`` with each other and with `strings`, which they join.
    static func records(count: Int, origins: Int, strings: inout [String], using random: inout SeededGenerator) -> [OddityData] {
        (0..<count).map { key in
            OddityData(
                key: key,
                text: lawfulString(&strings) { string(using: &random) },
                label: random.below(4) == 0 ? nil : lawfulString(&strings) { string(using: &random) },
                number: random.below(3) == 0 ? Int.random(in: -50...50, using: &random) : integers.randomElement(using: &random)!,
                step: Int.random(in: -20...20, using: &random),
                real: doubles.randomElement(using: &random)!,
                amount: random.below(5) == 0 ? nil : doubles.filter { !$0.isNaN }.randomElement(using: &random)!,
                when: dates.randomElement(using: &random)!,
                flag: Bool.random(using: &random),
                origin: random.below(4) == 0 ? nil : random.below(origins),
                tags: (0..<random.below(4)).map { _ in
                    (lawfulString(&strings) { string(using: &random) }, Int.random(in: -5...5, using: &random))
                })
        }
    }
}

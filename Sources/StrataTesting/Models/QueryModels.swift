import Foundation
import StrataCore

// The models the predicate, sort and window checks query, with the fixed data they hold.

/// A raw-value enum stored as its `Int` raw value.
enum WidgetSize: Int, Codable, Hashable {
    case small = 1, medium = 2, large = 3
}

/// A raw-value enum stored as its `String` raw value.
enum WidgetColour: String, Codable, Hashable {
    case red, green, blue
}

/// The model predicates select: attributes of many types, a to-one maker and to-many parts.
@Model final class Widget {
    var name: String
    var count: Int
    var price: Double
    var isActive: Bool
    var created: Date
    var code: UUID
    var nickname: String?
    var rating: Int?
    var flag: Bool?
    var size: WidgetSize
    var colour: WidgetColour?
    var readings: [Int]
    var tags: [String]
    var small: Int8
    var big: UInt64
    var ratio: Float
    var blob: Data
    var link: URL
    var amount: Decimal
    var transport: SpecimenTransport
    var maker: Maker?
    @Relationship(deleteRule: .cascade, inverse: \Part.widget) var parts: [Part] = []

    /// A computed property, which no store holds.
    var doubled: Int { count * 2 }

    init(name: String) {
        self.name = name
        count = 0
        price = 0
        isActive = false
        created = Date(timeIntervalSinceReferenceDate: 0)
        code = UUID()
        readings = []
        tags = []
        size = .small
        small = 0
        big = 0
        ratio = 0
        blob = Data()
        link = URL(string: "https://example.com")!
        amount = 0
        transport = .walk
    }
}

/// The destination of widgets' to-one relationship.
@Model final class Maker {
    var name: String
    var country: String?
    @Relationship(inverse: \Widget.maker) var widgets: [Widget] = []

    init(name: String, country: String?) {
        self.name = name
        self.country = country
    }
}

/// The destination of widgets' to-many relationship.
@Model final class Part {
    var name: String
    var weight: Int
    var widget: Widget?

    init(name: String, weight: Int) {
        self.name = name
        self.weight = weight
    }
}

extension Widget: NamedModel {}
extension Maker: NamedModel {}
extension Part: NamedModel {}

/// The fixed widgets the predicate checks query.
enum WidgetFixture {
    /// The first widget's creation date; each next widget is a day later.
    static let base = Date(timeIntervalSinceReferenceDate: 700_000_000.5)
    static let day: TimeInterval = 86_400

    static func date(_ day: Int) -> Date { base.addingTimeInterval(Double(day) * Self.day) }
    static func code(_ number: Int) -> UUID { UUID(uuidString: "00000000-0000-0000-0000-00000000000\(number)")! }

    /// All widget names.
    static let names: Set<String> = ["alpha", "beta", "gamma", "delta", "Épsilon", "zeta"]

    /// Inserts the makers, widgets and parts, and saves.
    ///
    /// | name    | count | price | active | day | nickname | rating | flag  | size   | colour | readings | tags      | maker  | part weights |
    /// |---------|-------|-------|--------|-----|----------|--------|-------|--------|--------|----------|-----------|--------|--------------|
    /// | alpha   | 1     | 9.99  | true   | 0   | "Al"     | 5      | true  | small  | red    | [3,1,2]  | [a,b]     | acme   | 10, 20       |
    /// | beta    | 2     | 19.5  | false  | 1   | nil      | 3      | false | medium | green  | [10]     | []        | acme   | 5            |
    /// | gamma   | 3     | 0     | true   | 2   | "Gam"    | nil    | nil   | large  | nil    | []       | [c]       | globex | —            |
    /// | delta   | 4     | -5.25 | false  | 3   | ""       | 1      | true  | small  | blue   | [7,8]    | [a]       | —      | 30, 40, 50   |
    /// | Épsilon | 5     | 100   | true   | 4   | "ÉPS"    | 4      | nil   | medium | red    | [5]      | [b,c]     | globex | 15           |
    /// | zeta    | 6     | 10    | false  | 5   | nil      | nil    | false | large  | green  | [6,6]    | []        | —      | —            |
    static func insert(into context: ModelContext) throws {
        let acme = Maker(name: "acme", country: "CH")
        let globex = Maker(name: "globex", country: nil)
        context.insert(Maker(name: "initech", country: "US"))

        func widget(
            _ name: String, _ count: Int, _ price: Double, _ isActive: Bool, _ day: Int, _ nickname: String?,
            _ rating: Int?, _ flag: Bool?, _ size: WidgetSize, _ colour: WidgetColour?, _ readings: [Int], _ tags: [String],
            small: Int8, big: UInt64, ratio: Float, blob: [UInt8], amount: String, transport: SpecimenTransport,
            maker: Maker?, parts: [(String, Int)]
        ) {
            let widget = Widget(name: name)
            widget.count = count
            widget.price = price
            widget.isActive = isActive
            widget.created = date(day)
            widget.code = code(count)
            widget.nickname = nickname
            widget.rating = rating
            widget.flag = flag
            widget.size = size
            widget.colour = colour
            widget.readings = readings
            widget.tags = tags
            widget.small = small
            widget.big = big
            widget.ratio = ratio
            widget.blob = Data(blob)
            widget.link = URL(string: "https://\(count).example.com/x")!
            widget.amount = Decimal(string: amount)!
            widget.transport = transport
            widget.parts = parts.map { Part(name: $0.0, weight: $0.1) }
            widget.maker = maker
            context.insert(widget)
        }
        widget(
            "alpha", 1, 9.99, true, 0, "Al", 5, true, .small, .red, [3, 1, 2], ["a", "b"],
            small: -8, big: 0, ratio: 0.5, blob: [1], amount: "1.10", transport: .walk,
            maker: acme, parts: [("p1", 10), ("p2", 20)])
        widget(
            "beta", 2, 19.5, false, 1, nil, 3, false, .medium, .green, [10], [],
            small: 0, big: .max, ratio: 1.5, blob: [], amount: "2.20", transport: .train(line: "S3"),
            maker: acme, parts: [("p3", 5)])
        widget(
            "gamma", 3, 0, true, 2, "Gam", nil, nil, .large, nil, [], ["c"],
            small: 127, big: 42, ratio: -2, blob: [1, 2], amount: "-3.30", transport: .flight(number: "LX1", seats: 2),
            maker: globex, parts: [])
        widget(
            "delta", 4, -5.25, false, 3, "", 1, true, .small, .blue, [7, 8], ["a"],
            small: -128, big: 1, ratio: 0, blob: [9], amount: "0", transport: .walk,
            maker: nil, parts: [("p4", 30), ("p5", 40), ("p6", 50)])
        widget(
            "Épsilon", 5, 100, true, 4, "ÉPS", 4, nil, .medium, .red, [5], ["b", "c"],
            small: 1, big: 2, ratio: 2.5, blob: [], amount: "10", transport: .train(line: "S1"),
            maker: globex, parts: [("p7", 15)])
        widget(
            "zeta", 6, 10, false, 5, nil, nil, false, .large, .green, [6, 6], [],
            small: 2, big: UInt64(Int64.max) + 1, ratio: 3, blob: [0], amount: "100.5", transport: .walk,
            maker: nil, parts: [])
        try context.save()
    }
}

/// The model sort checks order: a distinct value per model for each single-key sort.
@Model final class Ranked {
    var name: String
    var rank: Int
    var score: Double
    var when: Date
    var big: UInt64
    var small: Int8
    var rating: Int?
    var nickname: String?
    var group: String
    var title: String

    init(
        name: String, rank: Int, score: Double, when: Date, big: UInt64, small: Int8, rating: Int?, nickname: String?,
        group: String, title: String
    ) {
        self.name = name
        self.rank = rank
        self.score = score
        self.when = when
        self.big = big
        self.small = small
        self.rating = rating
        self.nickname = nickname
        self.group = group
        self.title = title
    }
}

extension Ranked: NamedModel {}

/// The fixed models the sort and window checks order.
enum RankedFixture {
    static func date(_ day: Int) -> Date { Date(timeIntervalSince1970: 1_600_000_000 + Double(day) * 86_400) }

    /// The models, unsaved, in insertion order (which is no sort order).
    static func models() -> [Ranked] {
        [
            Ranked(
                name: "delta", rank: 4, score: 2.5, when: date(3), big: .max, small: -1, rating: nil, nickname: "d",
                group: "x", title: "Delta"),
            Ranked(
                name: "alpha", rank: 1, score: -1, when: date(0), big: 0, small: .min, rating: 3, nickname: nil,
                group: "y", title: "alpha"),
            Ranked(
                name: "echo", rank: 5, score: 2.25, when: date(1), big: UInt64(Int64.max) + 1, small: .max, rating: 1,
                nickname: "e", group: "x", title: "Écho"),
            Ranked(
                name: "bravo", rank: 2, score: 10, when: date(-400), big: 5, small: 0, rating: nil, nickname: nil,
                group: "y", title: "bravo 10"),
            Ranked(
                name: "charlie", rank: 3, score: 0.5, when: date(2), big: 1 << 40, small: 1, rating: 2, nickname: "c",
                group: "x", title: "bravo 9"),
        ]
    }

    /// Inserts the models and saves.
    static func insert(into context: ModelContext) throws {
        for model in models() { context.insert(model) }
        try context.save()
    }
}

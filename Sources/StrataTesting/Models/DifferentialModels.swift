import Foundation
import StrataCore

/// The model the differential check fills with awkward values and queries with random predicates.
///
/// `number` holds the extremes of `Int`; `step` stays small, so arithmetic on it cannot
/// overflow (Swift traps where SQL would not). `real` holds NaN, ±infinity and -0.0; the
/// sorts use `amount`, which never holds NaN, since Swift's own sort of NaN is undefined.
@Model final class Oddity {
    /// The model's position in the generated data, which identifies it in reports.
    var key: Int
    var text: String
    var label: String?
    var number: Int
    var step: Int
    var real: Double
    var amount: Double?
    var when: Date
    var flag: Bool
    var origin: OddityOrigin?
    @Relationship(deleteRule: .cascade, inverse: \OddityTag.owner) var tags: [OddityTag] = []

    init(
        key: Int, text: String, label: String?, number: Int, step: Int, real: Double, amount: Double?, when: Date,
        flag: Bool
    ) {
        self.key = key
        self.text = text
        self.label = label
        self.number = number
        self.step = step
        self.real = real
        self.amount = amount
        self.when = when
        self.flag = flag
    }
}

/// The destination of an oddity's to-one relationship.
@Model final class OddityOrigin {
    var name: String
    @Relationship(inverse: \Oddity.origin) var oddities: [Oddity] = []

    init(name: String) {
        self.name = name
    }
}

/// The members of an oddity's to-many relationship.
@Model final class OddityTag {
    var word: String
    var weight: Int
    var owner: Oddity?

    init(word: String, weight: Int) {
        self.word = word
        self.weight = weight
    }
}

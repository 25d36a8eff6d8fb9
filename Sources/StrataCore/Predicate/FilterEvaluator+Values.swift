import Foundation

// Operations on single values for FilterEvaluator: equality, order, arithmetic, strings,
// and reading stored Codable arrays as collections. Errors name kinds, never values.
extension FilterEvaluator {
    static func unsupported(_ reason: String) -> SwiftDataError {
        SwiftDataError.unsupportedPredicate.with(details: "FilterEvaluator: \(reason)")
    }

    static func kindName(_ value: PersistentValue) -> String {
        value.kind?.rawValue ?? "null"
    }

    private static func mismatch(_ what: String, _ lhs: PersistentValue, _ rhs: PersistentValue) -> SwiftDataError {
        unsupported("cannot \(what) a \(kindName(lhs)) value and a \(kindName(rhs)) value")
    }

    // MARK: Comparison

    static func compare(_ comparison: FilterComparison, _ lhs: Operand, _ rhs: Operand) throws -> PersistentValue {
        switch comparison {
        case .equal:
            return .bool(try equals(lhs, rhs))
        case .notEqual:
            return .bool(!(try equals(lhs, rhs)))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard case .value(let left) = lhs, case .value(let right) = rhs else {
                throw unsupported("collections cannot be ordered")
            }
            if left.isNull || right.isNull { return .null }
            guard let order = try order(left, right) else { return .bool(false) }  // NaN
            switch comparison {
            case .less: return .bool(order == .orderedAscending)
            case .lessOrEqual: return .bool(order != .orderedDescending)
            case .greater: return .bool(order == .orderedDescending)
            default: return .bool(order != .orderedAscending)
            }
        }
    }

    /// Swift's `==` on two operands; `nil == nil` holds.
    static func equals(_ lhs: Operand, _ rhs: Operand) throws -> Bool {
        switch (lhs, rhs) {
        case (.value(let left), .value(let right)):
            return try equals(left, right)
        default:
            if lhs.isNull || rhs.isNull { return lhs.isNull && rhs.isNull }
            guard let left = try elements(of: lhs, hint: nil), let right = try elements(of: rhs, hint: nil) else { return false }
            guard left.count == right.count else { return false }
            return try zip(left, right).allSatisfy { try equals($0, $1) }
        }
    }

    /// Swift's `==` on two values; `nil == nil` holds.
    static func equals(_ lhs: PersistentValue, _ rhs: PersistentValue) throws -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.bool(let a), .bool(let b)): return a == b
        case (.bool(let a), .int(let b)), (.int(let b), .bool(let a)): return a == (b != 0)
        case (.string(let a), .string(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.date(let a), .date(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.url(let a), .url(let b)): return a == b
        case (.identifier(let a), .identifier(let b)): return a == b
        case (.identifiers(let a), .identifiers(let b)): return a == b
        case (.codable(let a), .codable(let b)):
            if a == b { return true }
            return (try? CodableAttributeCoding.decode(FilterJSONValue.self, from: a)) == (try? CodableAttributeCoding.decode(FilterJSONValue.self, from: b))
        default:
            if let order = numericOrder(lhs, rhs) { return order == .orderedSame }
            if isNumeric(lhs) && isNumeric(rhs) { return false }  // NaN
            throw mismatch("compare", lhs, rhs)
        }
    }

    /// Swift's order of two non-`nil` values, or `nil` when they are unordered (NaN); strings
    /// by ``CanonicalString/compare(_:_:)``.
    static func order(_ lhs: PersistentValue, _ rhs: PersistentValue) throws -> ComparisonResult? {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return CanonicalString.compare(a, b)
        case (.date(let a), .date(let b)): return a.compare(b)
        case (.uuid(let a), .uuid(let b)): return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
        case (.identifier(let a), .identifier(let b)): return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
        default:
            if let order = numericOrder(lhs, rhs) { return order }
            if isNumeric(lhs) && isNumeric(rhs) { return nil }
            throw mismatch("order", lhs, rhs)
        }
    }

    private static func isNumeric(_ value: PersistentValue) -> Bool {
        switch value {
        case .int, .double, .decimal: true
        default: false
        }
    }

    /// The order of two numbers of any numeric kinds, or `nil` when either is not a number or NaN.
    private static func numericOrder(_ lhs: PersistentValue, _ rhs: PersistentValue) -> ComparisonResult? {
        func result<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
            a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        }
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return result(a, b)
        case (.double(let a), .double(let b)): return a.isNaN || b.isNaN ? nil : result(a, b)
        case (.int(let a), .double(let b)): return b.isNaN ? nil : exactOrder(a, b)
        case (.double(let a), .int(let b)): return a.isNaN ? nil : exactOrder(b, a).map(reversed)
        case (.decimal(let a), .decimal(let b)): return a.isNaN || b.isNaN ? nil : result(a, b)
        case (.decimal(let a), .int(let b)): return a.isNaN ? nil : result(a, Decimal(b))
        case (.int(let a), .decimal(let b)): return b.isNaN ? nil : result(Decimal(a), b)
        case (.decimal(let a), .double(let b)): return a.isNaN || b.isNaN ? nil : result(a, Decimal(b))
        case (.double(let a), .decimal(let b)): return a.isNaN || b.isNaN ? nil : result(Decimal(a), b)
        default: return nil
        }
    }

    /// The exact order of an integer and a double, without rounding the integer.
    private static func exactOrder(_ integer: Int64, _ double: Double) -> ComparisonResult? {
        if double >= 9.2233720368547758e18 { return .orderedAscending }
        if double < -9.2233720368547758e18 { return .orderedDescending }
        let truncated = Int64(double.rounded(.towardZero))
        if integer != truncated { return integer < truncated ? .orderedAscending : .orderedDescending }
        let fraction = double - double.rounded(.towardZero)
        return fraction > 0 ? .orderedAscending : fraction < 0 ? .orderedDescending : .orderedSame
    }

    private static func reversed(_ order: ComparisonResult) -> ComparisonResult {
        switch order {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }

    /// The order of two sort values: `nil` first, strings by `stringOrder` (``CanonicalString/compare(_:_:)`` when `nil`).
    static func sortOrder(_ lhs: PersistentValue, _ rhs: PersistentValue, stringOrder: FilterStringOrder?) throws -> ComparisonResult {
        switch (lhs, rhs) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.string(let a), .string(let b)):
            guard let stringOrder else { return try order(lhs, rhs) ?? .orderedSame }
            return compare(a, b, stringOrder)
        case (.bool(let a), .bool(let b)):
            return a == b ? .orderedSame : b ? .orderedAscending : .orderedDescending
        // NaN orders with nothing in Swift, so a sort places it: after every number, as the
        // SQLite store does, so that every store sorts alike.
        case (.double(let a), _) where a.isNaN && isNumeric(rhs):
            if case .double(let b) = rhs, b.isNaN { return .orderedSame }
            return .orderedDescending
        case (_, .double(let b)) where b.isNaN && isNumeric(lhs):
            return .orderedAscending
        default:
            return try order(lhs, rhs) ?? .orderedSame
        }
    }

    private static func compare(_ lhs: String, _ rhs: String, _ order: FilterStringOrder) -> ComparisonResult {
        switch order {
        case .caseInsensitive: lhs.caseInsensitiveCompare(rhs)
        case .localized: lhs.localizedCompare(rhs)
        case .localizedStandard: lhs.localizedStandardCompare(rhs)
        }
    }

    static func rangeContains(
        lower: PersistentValue, upper: PersistentValue, closed: Bool, element: PersistentValue
    ) throws -> PersistentValue {
        if lower.isNull || upper.isNull || element.isNull { return .null }
        guard let fromLower = try order(lower, element), let toUpper = try order(element, upper) else { return .bool(false) }
        let aboveLower = fromLower != .orderedDescending
        let belowUpper = closed ? toUpper != .orderedDescending : toUpper == .orderedAscending
        return .bool(aboveLower && belowUpper)
    }

    static func aggregate(_ aggregate: FilterAggregate, _ elements: [PersistentValue]) throws -> PersistentValue {
        var best: PersistentValue?
        for element in elements where !element.isNull {
            guard let current = best else {
                best = element
                continue
            }
            guard let order = try order(element, current) else { continue }
            if aggregate == .min ? order == .orderedAscending : order == .orderedDescending { best = element }
        }
        return best ?? .null
    }

    // MARK: Arithmetic

    static func arithmetic(_ arithmetic: FilterArithmetic, _ lhs: PersistentValue, _ rhs: PersistentValue) throws -> PersistentValue {
        if lhs.isNull || rhs.isNull { return .null }
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)):
            let (result, overflow): (Int64, Bool)
            switch arithmetic {
            case .add: (result, overflow) = a.addingReportingOverflow(b)
            case .subtract: (result, overflow) = a.subtractingReportingOverflow(b)
            case .multiply: (result, overflow) = a.multipliedReportingOverflow(by: b)
            case .divide, .remainder:
                guard b != 0 else { throw unsupported("integer division by zero") }
                (result, overflow) = arithmetic == .divide ? a.dividedReportingOverflow(by: b) : a.remainderReportingOverflow(dividingBy: b)
            }
            guard !overflow else { throw unsupported("integer overflow in \(arithmetic.rawValue)") }
            return .int(result)
        case (.double, _), (_, .double):
            guard let a = double(lhs), let b = double(rhs) else { throw mismatch("do arithmetic on", lhs, rhs) }
            switch arithmetic {
            case .add: return .double(a + b)
            case .subtract: return .double(a - b)
            case .multiply: return .double(a * b)
            case .divide: return .double(a / b)
            case .remainder: throw unsupported("the remainder of floating-point values is not supported")
            }
        case (.decimal, _), (_, .decimal):
            guard let a = decimal(lhs), let b = decimal(rhs) else { throw mismatch("do arithmetic on", lhs, rhs) }
            switch arithmetic {
            case .add: return .decimal(a + b)
            case .subtract: return .decimal(a - b)
            case .multiply: return .decimal(a * b)
            case .divide:
                guard !b.isZero else { throw unsupported("decimal division by zero") }
                return .decimal(a / b)
            case .remainder: throw unsupported("the remainder of decimal values is not supported")
            }
        default:
            throw mismatch("do arithmetic on", lhs, rhs)
        }
    }

    static func negate(_ value: PersistentValue) throws -> PersistentValue {
        switch value {
        case .null: return .null
        case .int(let a):
            guard a != .min else { throw unsupported("integer overflow in negate") }
            return .int(-a)
        case .double(let a): return .double(-a)
        case .decimal(let a): return .decimal(-a)
        default: throw unsupported("cannot negate a \(kindName(value)) value")
        }
    }

    private static func double(_ value: PersistentValue) -> Double? {
        switch value {
        case .int(let a): Double(a)
        case .double(let a): a
        default: nil
        }
    }

    private static func decimal(_ value: PersistentValue) -> Decimal? {
        switch value {
        case .int(let a): Decimal(a)
        case .decimal(let a): a
        default: nil
        }
    }

    // MARK: Strings

    static func stringTest(_ test: FilterStringTest, _ lhs: PersistentValue, _ rhs: PersistentValue) throws -> PersistentValue {
        if lhs.isNull || rhs.isNull { return .null }
        guard case .string(let a) = lhs, case .string(let b) = rhs else { throw mismatch("test", lhs, rhs) }
        switch test {
        case .contains: return .bool(CanonicalString.contains(a, b))
        case .startsWith: return .bool(CanonicalString.starts(a, with: b))
        case .localizedStandardContains: return .bool(a.localizedStandardContains(b))
        }
    }

    static func stringOrder(_ order: FilterStringOrder, _ lhs: PersistentValue, _ rhs: PersistentValue) throws -> PersistentValue {
        if lhs.isNull || rhs.isNull { return .null }
        guard case .string(let a) = lhs, case .string(let b) = rhs else { throw mismatch("compare", lhs, rhs) }
        return .int(Int64(compare(a, b, order).rawValue))
    }

    // MARK: Collections

    /// The elements of a collection operand, or `nil` for `nil`.
    ///
    /// Stored `Codable` arrays are decoded: as dates, UUIDs, URLs, decimals or data when
    /// `hint` asks for them (they are not distinguishable in JSON), otherwise as JSON scalars;
    /// nested arrays and objects become ``PersistentValue/codable(_:)`` elements.
    static func elements(of operand: Operand, hint: PersistentValue.Kind?) throws -> [PersistentValue]? {
        switch operand {
        case .collection(let elements): return elements
        case .value(.null): return nil
        case .value(.identifiers(let identifiers)): return identifiers.map(PersistentValue.identifier)
        case .value(.codable(let data)): return try decodeArray(data, hint: hint)
        case .value(let other): throw unsupported("a \(kindName(other)) value is used as a collection")
        }
    }

    private static func decodeArray(_ data: Data, hint: PersistentValue.Kind?) throws -> [PersistentValue] {
        func typed<T: Decodable>(_ type: T.Type, _ wrap: (T) -> PersistentValue) throws -> [PersistentValue] {
            try CodableAttributeCoding.decode([T?].self, from: data).map { $0.map(wrap) ?? .null }
        }
        do {
            switch hint {
            case .date: return try typed(Date.self, PersistentValue.date)
            case .uuid: return try typed(UUID.self, PersistentValue.uuid)
            case .url: return try typed(URL.self, PersistentValue.url)
            case .decimal: return try typed(Decimal.self, PersistentValue.decimal)
            case .data: return try typed(Data.self, PersistentValue.data)
            default: return try CodableAttributeCoding.decode([FilterJSONValue].self, from: data).map { try $0.persistentValue() }
            }
        } catch let error as SwiftDataError {
            throw error
        } catch {
            throw unsupported("a stored Codable value is used as a collection but is not a JSON array of the needed kind")
        }
    }
}

/// A JSON value, for reading stored `Codable` arrays without knowing their Swift type.
enum FilterJSONValue: Codable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([FilterJSONValue])
    case object([String: FilterJSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([FilterJSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: FilterJSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Scalars as their ``PersistentValue``; arrays and objects as ``PersistentValue/codable(_:)`` JSON.
    func persistentValue() throws -> PersistentValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .array, .object: .codable(try CodableAttributeCoding.encode(self))
        }
    }
}

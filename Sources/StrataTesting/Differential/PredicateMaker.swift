import Foundation
import StrataCore

/// A Boolean predicate expression over an ``Oddity``, built at run time.
typealias Condition = any StandardPredicateExpression<Bool>

/// Draws random predicates over ``Oddity`` from every construct Strata's translator
/// accepts, each with a Swift-like text for reports.
///
/// `#Predicate` builds its tree at compile time; this builds the same `PredicateExpressions`
/// nodes at run time, opening existentials into the generic nodes' initialisers.
struct PredicateMaker {
    var random: SeededGenerator
    /// Strings the data holds, so equality and prefixes sometimes match.
    let strings: [String]
    /// Every string the data holds or a predicate compares: each is ``OddityData/lawful(_:_:)`` with the others.
    private var compared: [String]
    private var variable = PredicateExpressions.Variable<Oddity>()

    init(random: SeededGenerator, strings: [String]) {
        self.random = random
        self.strings = strings
        compared = strings
    }

    /// A random predicate and its text.
    mutating func predicate() -> (Predicate<Oddity>, String) {
        let depth = random.below(3)
        var text = ""
        // `Predicate` makes the variable and calls the builder once, before it returns.
        let predicate = Predicate<Oddity> { (model: PredicateExpressions.Variable<Oddity>) -> Condition in
            variable = model
            let (condition, description) = condition(depth: depth)
            text = description
            return condition
        }
        return (predicate, text)
    }

    /// Random sort descriptors (ending with `key`, so no two models tie) and their text.
    mutating func sort() -> ([SortDescriptor<Oddity>], String) {
        var descriptors: [SortDescriptor<Oddity>] = []
        var texts: [String] = []
        for _ in 0...random.below(3) {
            let order: SortOrder = Bool.random(using: &random) ? .forward : .reverse
            let direction = order == .forward ? "" : ", reverse"
            switch random.below(8) {
            case 0: descriptors.append(SortDescriptor(\.text, order: order)); texts.append("text\(direction)")
            case 1: descriptors.append(SortDescriptor(\.text, comparator: .lexical, order: order)); texts.append("text(lexical\(direction))")
            case 2: descriptors.append(SortDescriptor(\.label, order: order)); texts.append("label\(direction)")
            case 3: descriptors.append(SortDescriptor(\.label, comparator: .lexical, order: order)); texts.append("label(lexical\(direction))")
            case 4: descriptors.append(SortDescriptor(\.number, order: order)); texts.append("number\(direction)")
            case 5: descriptors.append(SortDescriptor(\.step, order: order)); texts.append("step\(direction)")
            case 6: descriptors.append(SortDescriptor(\.amount, order: order)); texts.append("amount\(direction)")
            default: descriptors.append(SortDescriptor(\.when, order: order)); texts.append("when\(direction)")
            }
        }
        descriptors.append(SortDescriptor(\.key))
        return (descriptors, texts.joined(separator: ", "))
    }

    // MARK: Conditions

    private mutating func condition(depth: Int) -> (Condition, String) {
        guard depth > 0, random.below(3) != 0 else { return leaf() }
        let (a, aText) = condition(depth: depth - 1)
        switch random.below(4) {
        case 0:
            let (b, bText) = condition(depth: depth - 1)
            return (conjunction(a, b), "(\(aText) && \(bText))")
        case 1:
            let (b, bText) = condition(depth: depth - 1)
            return (disjunction(a, b), "(\(aText) || \(bText))")
        case 2:
            return (negation(a), "!\(aText)")
        default:
            let (b, bText) = condition(depth: depth - 1)
            let (test, testText) = leaf()
            return (conditional(test, a, b), "(\(testText) ? \(aText) : \(bText))")
        }
    }

    private mutating func leaf() -> (Condition, String) {
        let text = keyPath(\.text), label = keyPath(\.label)
        switch random.below(28) {
        case 0, 1:
            let value = stringConstant()
            return compared(text, "text", constant(value), OddityData.spelled(value))
        case 2:
            let value = stringConstant()
            let equal = Bool.random(using: &random)
            return (
                equal ? equality(label, constant(Optional(value))) : inequality(label, constant(Optional(value))),
                "label \(equal ? "==" : "!=") \(OddityData.spelled(value))")
        case 3:
            let equal = Bool.random(using: &random)
            let none = PredicateExpressions.NilLiteral<String>()
            return (equal ? equality(label, none) : inequality(label, none), "label \(equal ? "==" : "!=") nil")
        case 4:
            let fallback = stringConstant(), value = stringConstant()
            return compared(
                coalescing(label, constant(fallback)), "(label ?? \(OddityData.spelled(fallback)))", constant(value), OddityData.spelled(value))
        case 5:
            let prefix = stringConstant(prefixOnly: true)
            return (PredicateExpressions.SequenceStartsWith(base: text, prefix: constant(prefix)), "text.starts(with: \(OddityData.spelled(prefix)))")
        case 6:
            let part = stringConstant(prefixOnly: true)
            return (
                PredicateExpressions.CollectionContainsCollection(base: text, other: constant(part)), "text.contains(\(OddityData.spelled(part)))")
        case 7:
            let part = stringConstant(prefixOnly: true)
            return (
                PredicateExpressions.StringLocalizedStandardContains(root: text, other: constant(part)),
                "text.localizedStandardContains(\(OddityData.spelled(part)))")
        case 8:
            let other = stringConstant()
            let result = [ComparisonResult.orderedAscending, .orderedSame, .orderedDescending].randomElement(using: &random)!
            let compare = PredicateExpressions.StringCaseInsensitiveCompare(root: text, other: constant(other))
            return (
                PredicateExpressions.Equal(lhs: compare, rhs: constant(result)),
                "text.caseInsensitiveCompare(\(OddityData.spelled(other))) == \(result.rawValue)")
        case 9:
            let list = (0...random.below(4)).map { _ in stringConstant() }
            if Bool.random(using: &random) {
                return (
                    PredicateExpressions.SequenceContains(sequence: constant(list), element: text),
                    "\(list.map(OddityData.spelled)).contains(text)")
            }
            let optionals: [String?] = list + [nil]
            return (
                PredicateExpressions.SequenceContains(sequence: constant(optionals), element: label),
                "\(list.map(OddityData.spelled) + ["nil"]).contains(label)")
        case 10:
            let value = OddityData.integers.randomElement(using: &random)!
            return compared(keyPath(\.number), "number", constant(value), "\(value)")
        case 11:
            var bounds = [OddityData.integers.randomElement(using: &random)!, OddityData.integers.randomElement(using: &random)!].sorted()
            if bounds[0] == bounds[1], bounds[1] < .max { bounds[1] += 1 }
            let number = keyPath(\.number)
            if Bool.random(using: &random) {
                return (
                    PredicateExpressions.RangeExpressionContains(
                        range: PredicateExpressions.ClosedRange(lower: constant(bounds[0]), upper: constant(bounds[1])), element: number),
                    "(\(bounds[0])...\(bounds[1])).contains(number)")
            }
            return (
                PredicateExpressions.RangeExpressionContains(
                    range: PredicateExpressions.Range(lower: constant(bounds[0]), upper: constant(bounds[1])), element: number),
                "(\(bounds[0])..<\(bounds[1])).contains(number)")
        case 12:
            return stepArithmetic()
        case 13:
            let value = OddityData.doubles.randomElement(using: &random)!
            return compared(keyPath(\.real), "real", constant(value), "\(value)")
        case 14:
            return realArithmetic()
        case 15:
            let value = OddityData.doubles.filter { !$0.isNaN }.randomElement(using: &random)!
            if Bool.random(using: &random) {
                let equal = Bool.random(using: &random)
                let amount = keyPath(\.amount)
                return (
                    equal ? equality(amount, constant(Optional(value))) : inequality(amount, constant(Optional(value))),
                    "amount \(equal ? "==" : "!=") \(value)")
            }
            let fallback = OddityData.doubles.randomElement(using: &random)!
            return compared(coalescing(keyPath(\.amount), constant(fallback)), "(amount ?? \(fallback))", constant(value), "\(value)")
        case 16:
            let value = OddityData.dates.randomElement(using: &random)!
            return compared(keyPath(\.when), "when", constant(value), "date(\(value.timeIntervalSinceReferenceDate))")
        case 17:
            let flag = keyPath(\.flag)
            switch random.below(3) {
            case 0: return (flag, "flag")
            case 1: return (negation(flag), "!flag")
            default:
                let value = Bool.random(using: &random)
                return (PredicateExpressions.Equal(lhs: flag, rhs: constant(value)), "flag == \(value)")
            }
        case 18:
            let count = PredicateExpressions.KeyPath(root: text, keyPath: \String.count)
            let value = random.below(6)
            if value == 0 {
                return (PredicateExpressions.KeyPath(root: text, keyPath: \String.isEmpty), "text.isEmpty")
            }
            return compared(count, "text.count", constant(value), "\(value)")
        case 19:
            let other = stringConstant()
            let result = [ComparisonResult.orderedAscending, .orderedSame, .orderedDescending].randomElement(using: &random)!
            let compare = PredicateExpressions.StringLocalizedCompare(root: text, other: constant(other))
            return (
                PredicateExpressions.Equal(lhs: compare, rhs: constant(result)),
                "text.localizedCompare(\(OddityData.spelled(other))) == \(result.rawValue)")
        case 20, 21:
            let name = PredicateExpressions.OptionalFlatMap<
                PredicateExpressions.KeyPath<PredicateExpressions.Variable<Oddity>, OddityOrigin?>, OddityOrigin,
                PredicateExpressions.KeyPath<PredicateExpressions.Variable<OddityOrigin>, String>, String
            >(keyPath(\.origin)) { PredicateExpressions.KeyPath(root: $0, keyPath: \OddityOrigin.name) }
            let value = stringConstant()
            if Bool.random(using: &random) {
                let equal = Bool.random(using: &random)
                return (
                    equal ? equality(name, constant(Optional(value))) : inequality(name, constant(Optional(value))),
                    "origin?.name \(equal ? "==" : "!=") \(OddityData.spelled(value))")
            }
            let fallback = stringConstant()
            return compared(
                coalescing(name, constant(fallback)), "(origin?.name ?? \(OddityData.spelled(fallback)))", constant(value), OddityData.spelled(value))
        case 22:
            let equal = Bool.random(using: &random)
            let none = PredicateExpressions.NilLiteral<OddityOrigin>()
            return (equal ? equality(keyPath(\.origin), none) : inequality(keyPath(\.origin), none), "origin \(equal ? "==" : "!=") nil")
        case 23:
            let k = Int.random(in: -6...6, using: &random)
            return (
                PredicateExpressions.SequenceContainsWhere(keyPath(\.tags)) {
                    PredicateExpressions.Comparison(lhs: PredicateExpressions.KeyPath(root: $0, keyPath: \OddityTag.weight), rhs: PredicateExpressions.Value(k), op: .greaterThan)
                },
                "tags.contains { $0.weight > \(k) }")
        case 24:
            let word = stringConstant()
            return (
                PredicateExpressions.SequenceContainsWhere(keyPath(\.tags)) {
                    PredicateExpressions.Equal(lhs: PredicateExpressions.KeyPath(root: $0, keyPath: \OddityTag.word), rhs: PredicateExpressions.Value(word))
                },
                "tags.contains { $0.word == \(OddityData.spelled(word)) }")
        case 25:
            let prefix = stringConstant(prefixOnly: true)
            return (
                PredicateExpressions.SequenceAllSatisfy(keyPath(\.tags)) {
                    PredicateExpressions.SequenceStartsWith(base: PredicateExpressions.KeyPath(root: $0, keyPath: \OddityTag.word), prefix: PredicateExpressions.Value(prefix))
                },
                "tags.allSatisfy { $0.word.starts(with: \(OddityData.spelled(prefix))) }")
        case 26:
            let count = PredicateExpressions.KeyPath(root: keyPath(\.tags), keyPath: \[OddityTag].count)
            let n = random.below(4)
            return compared(count, "tags.count", constant(n), "\(n)")
        case 27:
            let k = Int.random(in: -6...6, using: &random)
            let light = PredicateExpressions.Filter(keyPath(\.tags)) {
                PredicateExpressions.Comparison(lhs: PredicateExpressions.KeyPath(root: $0, keyPath: \OddityTag.weight), rhs: PredicateExpressions.Value(k), op: .lessThan)
            }
            let n = random.below(3)
            return compared(PredicateExpressions.KeyPath(root: light, keyPath: \[OddityTag].count), "tags.filter { $0.weight < \(k) }.count", constant(n), "\(n)")
        default:
            let prefix = stringConstant(prefixOnly: true)
            let starts = PredicateExpressions.OptionalFlatMap<
                PredicateExpressions.KeyPath<PredicateExpressions.Variable<Oddity>, String?>, String,
                PredicateExpressions.SequenceStartsWith<PredicateExpressions.Variable<String>, PredicateExpressions.Value<String>>, Bool
            >(keyPath(\.label)) { PredicateExpressions.SequenceStartsWith(base: $0, prefix: PredicateExpressions.Value(prefix)) }
            let value = Bool.random(using: &random)
            return (
                PredicateExpressions.Equal(lhs: starts, rhs: constant(Optional(value))),
                "label.flatMap { $0.starts(with: \(OddityData.spelled(prefix))) } == \(value)")
        }
    }

    /// `(step op k) <cmp> m` for `+ - * / %`, or `-step <cmp> m`: `step` is small, so nothing overflows.
    private mutating func stepArithmetic() -> (Condition, String) {
        let step = keyPath(\.step)
        let k = Int.random(in: -5...5, using: &random)
        let m = constant(Int.random(in: -40...40, using: &random))
        let mText = "\(m.value)"
        switch random.below(6) {
        case 0: return compared(PredicateExpressions.Arithmetic(lhs: step, rhs: constant(k), op: .add), "(step + \(k))", m, mText)
        case 1: return compared(PredicateExpressions.Arithmetic(lhs: step, rhs: constant(k), op: .subtract), "(step - \(k))", m, mText)
        case 2: return compared(PredicateExpressions.Arithmetic(lhs: step, rhs: constant(k), op: .multiply), "(step * \(k))", m, mText)
        case 3:
            let divisor = k == 0 ? 3 : k
            return compared(PredicateExpressions.IntDivision(lhs: step, rhs: constant(divisor)), "(step / \(divisor))", m, mText)
        case 4:
            let divisor = k == 0 ? 3 : k
            return compared(PredicateExpressions.IntRemainder(lhs: step, rhs: constant(divisor)), "(step % \(divisor))", m, mText)
        default: return compared(PredicateExpressions.UnaryMinus(step), "-step", m, mText)
        }
    }

    /// `(real op k) <cmp> m` for `+ - * /`, with NaN, infinities and zero among the constants.
    private mutating func realArithmetic() -> (Condition, String) {
        let real = keyPath(\.real)
        let k = OddityData.doubles.randomElement(using: &random)!
        let m = OddityData.doubles.randomElement(using: &random)!
        switch random.below(5) {
        case 0: return compared(PredicateExpressions.Arithmetic(lhs: real, rhs: constant(k), op: .add), "(real + \(k))", constant(m), "\(m)")
        case 1: return compared(PredicateExpressions.Arithmetic(lhs: real, rhs: constant(k), op: .subtract), "(real - \(k))", constant(m), "\(m)")
        case 2: return compared(PredicateExpressions.Arithmetic(lhs: real, rhs: constant(k), op: .multiply), "(real * \(k))", constant(m), "\(m)")
        case 3: return compared(PredicateExpressions.FloatDivision(lhs: real, rhs: constant(k)), "(real / \(k))", constant(m), "\(m)")
        default: return compared(PredicateExpressions.UnaryMinus(real), "-real", constant(m), "\(m)")
        }
    }

    // MARK: Pieces

    private mutating func stringConstant(prefixOnly: Bool = false) -> String {
        var compared = self.compared
        defer { self.compared = compared }
        return OddityData.lawfulString(&compared) { drawString(prefixOnly: prefixOnly) }
    }

    private mutating func drawString(prefixOnly: Bool) -> String {
        let pick = random.below(3)
        if pick == 0 || strings.isEmpty { return OddityData.string(using: &random) }
        let source = strings.randomElement(using: &random)!
        guard prefixOnly || pick == 1 else { return source }
        // A prefix or a part of a stored string, cut at a Character or at a Unicode scalar.
        let scalars = Array(source.unicodeScalars)
        guard !scalars.isEmpty else { return source }
        let start = prefixOnly && Bool.random(using: &random) ? 0 : random.below(scalars.count)
        let end = Int.random(in: start...scalars.count, using: &random)
        var cut = String.UnicodeScalarView()
        cut.append(contentsOf: scalars[start..<end])
        return String(cut)
    }

    private func keyPath<Value>(_ keyPath: any KeyPath<Oddity, Value> & Sendable) -> PredicateExpressions.KeyPath<PredicateExpressions.Variable<Oddity>, Value> {
        PredicateExpressions.KeyPath(root: variable, keyPath: keyPath)
    }

    private func constant<Value>(_ value: Value) -> PredicateExpressions.Value<Value> {
        PredicateExpressions.Value(value)
    }

    /// `lhs <op> rhs` for a random one of `== != < <= > >=`, sometimes with the operands swapped.
    private mutating func compared<L: StandardPredicateExpression, R: StandardPredicateExpression>(
        _ lhs: L, _ lhsText: String, _ rhs: R, _ rhsText: String
    ) -> (Condition, String) where L.Output == R.Output, L.Output: Comparable {
        if Bool.random(using: &random) { return comparison(rhs, rhsText, lhs, lhsText) }
        return comparison(lhs, lhsText, rhs, rhsText)
    }

    /// `lhs <op> rhs` for a random one of `== != < <= > >=`.
    private mutating func comparison<L: StandardPredicateExpression, R: StandardPredicateExpression>(
        _ lhs: L, _ lhsText: String, _ rhs: R, _ rhsText: String
    ) -> (Condition, String) where L.Output == R.Output, L.Output: Comparable {
        switch random.below(6) {
        case 0: return (PredicateExpressions.Equal(lhs: lhs, rhs: rhs), "\(lhsText) == \(rhsText)")
        case 1: return (PredicateExpressions.NotEqual(lhs: lhs, rhs: rhs), "\(lhsText) != \(rhsText)")
        case 2: return (PredicateExpressions.Comparison(lhs: lhs, rhs: rhs, op: .lessThan), "\(lhsText) < \(rhsText)")
        case 3: return (PredicateExpressions.Comparison(lhs: lhs, rhs: rhs, op: .lessThanOrEqual), "\(lhsText) <= \(rhsText)")
        case 4: return (PredicateExpressions.Comparison(lhs: lhs, rhs: rhs, op: .greaterThan), "\(lhsText) > \(rhsText)")
        default: return (PredicateExpressions.Comparison(lhs: lhs, rhs: rhs, op: .greaterThanOrEqual), "\(lhsText) >= \(rhsText)")
        }
    }

    private func equality<L: StandardPredicateExpression, R: StandardPredicateExpression>(_ lhs: L, _ rhs: R) -> Condition
    where L.Output == R.Output, L.Output: Equatable {
        PredicateExpressions.Equal(lhs: lhs, rhs: rhs)
    }

    private func inequality<L: StandardPredicateExpression, R: StandardPredicateExpression>(_ lhs: L, _ rhs: R) -> Condition
    where L.Output == R.Output, L.Output: Equatable {
        PredicateExpressions.NotEqual(lhs: lhs, rhs: rhs)
    }

    private func coalescing<L: StandardPredicateExpression, R: StandardPredicateExpression, Wrapped>(_ lhs: L, _ rhs: R)
        -> PredicateExpressions.NilCoalesce<L, R> where L.Output == Wrapped?, R.Output == Wrapped
    {
        PredicateExpressions.NilCoalesce(lhs: lhs, rhs: rhs)
    }

    private func conjunction<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ lhs: L, _ rhs: R) -> Condition {
        PredicateExpressions.Conjunction(lhs: lhs, rhs: rhs)
    }

    private func disjunction<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(_ lhs: L, _ rhs: R) -> Condition {
        PredicateExpressions.Disjunction(lhs: lhs, rhs: rhs)
    }

    private func negation<Operand: StandardPredicateExpression<Bool>>(_ operand: Operand) -> Condition {
        PredicateExpressions.Negation(operand)
    }

    private func conditional<
        Test: StandardPredicateExpression<Bool>, Then: StandardPredicateExpression<Bool>, Else: StandardPredicateExpression<Bool>
    >(_ test: Test, _ then: Then, _ otherwise: Else) -> Condition {
        PredicateExpressions.Conditional(test: test, trueBranch: then, falseBranch: otherwise)
    }
}

extension SeededGenerator {
    /// A random number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int { Int(next(upperBound: UInt64(bound))) }
}

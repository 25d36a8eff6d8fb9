import Foundation
import Testing
@testable import StrataCore

/// A plain value to search, standing in for a model.
private struct Item {
    var name: String
    var destination: String = ""
}

@Suite struct LocalizedStandardContainsTests {
    private func matches(_ name: String, _ text: String) throws -> Bool {
        let predicate = #Predicate<Item> { $0.name.localizedStandardContains(text) }
        return try predicate.evaluate(Item(name: name))
    }

    @Test func matchesIgnoringCaseAndDiacritics() throws {
        #expect(try matches("Zürich", "zur"))
        #expect(try matches("ÉCOLE", "ecol"))
        #expect(try matches("école", "ECOLE"))
        #expect(try matches("ÁḄÇDEF", "abc"))
        #expect(try matches("abcdef", "ÁḄÇ"))
    }

    @Test func matchesDecomposedAgainstPrecomposedCharacters() throws {
        #expect(try matches("e\u{301}cole", "\u{E9}cole"))
        #expect(try matches("\u{E9}cole", "e\u{301}cole"))
    }

    @Test func matchesAnywhereInTheString() throws {
        #expect(try matches("Trip to Zürich", "ZURICH"))
        #expect(try matches("Trip to Zürich", "to z"))
        #expect(try matches("Zürich", "Zürich"))
    }

    @Test func rejectsStringsThatDoNotContainTheText() throws {
        #expect(try !matches("Zürich", "zurichs"))
        #expect(try !matches("Paris", "zur"))
        #expect(try !matches("Zü rich", "zur"))
    }

    @Test func emptySearchTextMatchesNothing() throws {
        #expect(try !matches("Zürich", ""))
        #expect(try !matches("", ""))
        #expect(try !matches("", "a"))
    }

    @Test func acceptsSubstringOperands() throws {
        let text: Substring = "Trip to Zürich".suffix(6)
        let matching = PredicateExpressions.build_localizedStandardContains(
            PredicateExpressions.Value("ZURICH, Switzerland"[...]),
            PredicateExpressions.Value(text)
        )
        let other = PredicateExpressions.build_localizedStandardContains(
            PredicateExpressions.Value("Zug"),
            PredicateExpressions.Value(text)
        )
        #expect(try matching.evaluate(PredicateBindings()))
        #expect(try !other.evaluate(PredicateBindings()))
    }

    @Test func composesWithConditionalsAndDisjunctions() throws {
        func search(_ searchText: String) -> Predicate<Item> {
            #Predicate<Item> {
                searchText.isEmpty
                    ? true
                    : $0.name.localizedStandardContains(searchText)
                        || $0.destination.localizedStandardContains(searchText)
            }
        }
        let trip = Item(name: "Summer break", destination: "Zürich")

        #expect(try search("").evaluate(trip))
        #expect(try search("SUMMER").evaluate(trip))
        #expect(try search("zurich").evaluate(trip))
        #expect(try !search("Paris").evaluate(trip))
    }

    @Test func buildFunctionKeepsBothOperands() throws {
        let expression = PredicateExpressions.build_localizedStandardContains(
            PredicateExpressions.Value("Zürich"),
            PredicateExpressions.Value("zur")
        )
        #expect(expression.root.value == "Zürich")
        #expect(expression.other.value == "zur")
        #expect(try expression.evaluate(PredicateBindings()))
    }

    @Test func encodesOperandsAsAnUnkeyedPair() throws {
        let expression = PredicateExpressions.build_localizedStandardContains(
            PredicateExpressions.Value("Zürich"),
            PredicateExpressions.Value("zur")
        )
        let data = try JSONEncoder().encode(expression)
        #expect(String(decoding: data, as: UTF8.self) == #"["Zürich","zur"]"#)
    }

    @Test func roundTripsThroughJSON() throws {
        typealias Expression = PredicateExpressions.StringLocalizedStandardContains<
            PredicateExpressions.Value<String>, PredicateExpressions.Value<String>
        >
        let original = PredicateExpressions.build_localizedStandardContains(
            PredicateExpressions.Value("ÉCOLE"),
            PredicateExpressions.Value("ecol")
        )
        let decoded = try JSONDecoder().decode(Expression.self, from: JSONEncoder().encode(original))

        #expect(decoded.root.value == "ÉCOLE")
        #expect(decoded.other.value == "ecol")
        #expect(try decoded.evaluate(PredicateBindings()))
    }

    @Test func predicateExpressionRoundTripsThroughJSON() throws {
        typealias Expression = PredicateExpressions.StringLocalizedStandardContains<
            PredicateExpressions.Variable<String>, PredicateExpressions.Value<String>
        >
        let predicate = #Predicate<String> { $0.localizedStandardContains("zur") }
        let data = try JSONEncoder().encode(predicate.expression)
        let decoded = try JSONDecoder().decode(Expression.self, from: data)

        #expect(try decoded.evaluate(PredicateBindings((predicate.variable, "Zürich"))))
        #expect(try !decoded.evaluate(PredicateBindings((predicate.variable, "Paris"))))
    }

    @Test func decodingRejectsAMissingOperand() throws {
        typealias Expression = PredicateExpressions.StringLocalizedStandardContains<
            PredicateExpressions.Value<String>, PredicateExpressions.Value<String>
        >
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Expression.self, from: Data(#"["Zürich"]"#.utf8))
        }
    }
}

import Foundation
import Strata
import Testing

@testable import StrataCore

/// The property at `path` from the fetched model (variable 0).
private func property(_ path: String...) -> FilterExpression {
    .property(variable: 0, path: path)
}

/// The property at `path` from the element bound to `variable`.
private func element(_ variable: Int, _ path: String...) -> FilterExpression {
    .property(variable: variable, path: path)
}

private let today = Date(timeIntervalSince1970: 1_700_000_000)

/// The details of the `SwiftDataError.unsupportedPredicate` that translating `predicate` throws.
private func unsupportedDetails<T: PersistentModel>(_ predicate: Predicate<T>) -> String? {
    do {
        let filter = try PredicateTranslator.translate(predicate)
        Issue.record("expected an error, got \(filter)")
        return nil
    } catch let error as SwiftDataError where error == SwiftDataError.unsupportedPredicate {
        return error.details
    } catch {
        Issue.record("expected SwiftDataError.unsupportedPredicate, got \(error)")
        return nil
    }
}

@Suite struct PredicateTranslatorTests {
    // MARK: Comparison and logic

    @Test func equalityBecomesAComparisonOfPropertyAndValue() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { $0.name == "Paris" })
        #expect(filter == .comparison(.equal, property("name"), .value(.string("Paris"))))
    }

    @Test func orderingOperatorsMapToTheirComparisons() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Trip> {
            $0.startDate < today && $0.startDate <= today && $0.endDate > today && $0.endDate >= today && $0.name != "x"
        })
        let date = FilterExpression.value(.date(today))
        #expect(filter == .and(
            .and(
                .and(
                    .and(.comparison(.less, property("startDate"), date), .comparison(.lessOrEqual, property("startDate"), date)),
                    .comparison(.greater, property("endDate"), date)),
                .comparison(.greaterOrEqual, property("endDate"), date)),
            .comparison(.notEqual, property("name"), .value(.string("x")))))
    }

    @Test func orAndNotMapToTheirConnectives() throws {
        let filter = try PredicateTranslator.translate(#Predicate<BucketListItem> { !$0.isInPlan || $0.hasReservation })
        #expect(filter == .or(.not(property("isInPlan")), property("hasReservation")))
    }

    @Test func arithmeticMapsEveryOperatorIncludingDivisionAndRemainder() throws {
        let int = property("int")
        let sum = try PredicateTranslator.translate(#Predicate<Specimen> { ($0.int + 1) * 2 - $0.int == 0 })
        #expect(sum == .comparison(
            .equal,
            .arithmetic(.subtract, .arithmetic(.multiply, .arithmetic(.add, int, .value(.int(1))), .value(.int(2))), int),
            .value(.int(0))))
        let division = try PredicateTranslator.translate(#Predicate<Specimen> { $0.int / 3 == $0.int % 4 })
        #expect(division == .comparison(
            .equal, .arithmetic(.divide, int, .value(.int(3))), .arithmetic(.remainder, int, .value(.int(4)))))
        let floating = try PredicateTranslator.translate(#Predicate<Specimen> { $0.double / 2 > 1 })
        #expect(floating == .comparison(.greater, .arithmetic(.divide, property("double"), .value(.double(2))), .value(.double(1))))
        let negated = try PredicateTranslator.translate(#Predicate<Specimen> { -$0.int > 0 })
        #expect(negated == .comparison(.greater, .negate(int), .value(.int(0))))
    }

    @Test func conditionalWithAPropertyTestStaysConditional() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Specimen> { $0.bool ? $0.int > 0 : $0.int < 0 })
        #expect(filter == .conditional(
            property("bool"),
            then: .comparison(.greater, property("int"), .value(.int(0))),
            else: .comparison(.less, property("int"), .value(.int(0)))))
    }

    // MARK: Optionals

    @Test func nilCoalescingBecomesCoalesce() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Specimen> { ($0.optionalInt ?? 10) > 5 })
        #expect(filter == .comparison(.greater, .coalesce(property("optionalInt"), .value(.int(10))), .value(.int(5))))
    }

    @Test func optionalChainingThroughAToOneRelationshipExtendsThePath() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { $0.livingAccommodation?.placeName == "Hotel" })
        #expect(filter == .comparison(.equal, property("livingAccommodation", "placeName"), .value(.string("Hotel"))))
    }

    @Test func optionalChainingThroughTwoRelationshipsExtendsThePathTwice() throws {
        let filter = try PredicateTranslator.translate(#Predicate<BucketListItem> {
            $0.trip?.livingAccommodation?.hasReservation == true
        })
        #expect(filter == .comparison(.equal, property("trip", "livingAccommodation", "hasReservation"), .value(.bool(true))))
    }

    @Test func optionalMapToANonPropertyGuardsAgainstNil() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Specimen> { $0.optionalString?.count == 3 })
        #expect(filter == .comparison(
            .equal,
            .conditional(
                .comparison(.equal, property("optionalString"), .value(.null)),
                then: .value(.null),
                else: .count(property("optionalString"))),
            .value(.int(3))))
    }

    @Test func nilLiteralsBecomeNullValues() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { $0.livingAccommodation == nil })
        #expect(filter == .comparison(.equal, property("livingAccommodation"), .value(.null)))
        let notNil = try PredicateTranslator.translate(#Predicate<Specimen> { $0.optionalString != nil })
        #expect(notNil == .comparison(.notEqual, property("optionalString"), .value(.null)))
    }

    @Test func capturedNilOptionalBecomesNull() throws {
        let missing: String? = nil
        let filter = try PredicateTranslator.translate(#Predicate<Specimen> { $0.optionalString == missing })
        #expect(filter == .comparison(.equal, property("optionalString"), .value(.null)))
    }

    // MARK: Strings

    @Test func stringContainsBecomesACaseSensitiveStringTest() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { $0.name.contains("ar") })
        #expect(filter == .stringTest(.contains, property("name"), .value(.string("ar"))))
    }

    @Test func startsWithBecomesAPrefixTest() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { $0.name.starts(with: "Pa") })
        #expect(filter == .stringTest(.startsWith, property("name"), .value(.string("Pa"))))
    }

    @Test func localizedStandardContainsBecomesItsStringTest() throws {
        let text = "zur"
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { $0.destination.localizedStandardContains(text) })
        #expect(filter == .stringTest(.localizedStandardContains, property("destination"), .value(.string("zur"))))
    }

    @Test func caseInsensitiveAndLocalizedCompareCompareWithComparisonResultRawValues() throws {
        let text = "paris"
        let same = ComparisonResult.orderedSame
        let ascending = ComparisonResult.orderedAscending
        let filter = try PredicateTranslator.translate(#Predicate<Trip> {
            $0.name.caseInsensitiveCompare(text) == same || $0.destination.localizedCompare(text) == ascending
        })
        #expect(filter == .or(
            .comparison(.equal, .stringOrder(.caseInsensitive, property("name"), .value(.string("paris"))), .value(.int(0))),
            .comparison(.equal, .stringOrder(.localized, property("destination"), .value(.string("paris"))), .value(.int(-1)))))
    }

    @Test func stringCountAndIsEmptyBecomeCounts() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { $0.name.count > 3 && !$0.destination.isEmpty })
        #expect(filter == .and(
            .comparison(.greater, .count(property("name")), .value(.int(3))),
            .not(.comparison(.equal, .count(property("destination")), .value(.int(0))))))
    }

    // MARK: Collections

    @Test func collectionContainsValueBecomesContains() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Specimen> { $0.tags.contains("lake") })
        #expect(filter == .contains(collection: property("tags"), element: .value(.string("lake"))))
    }

    @Test func capturedArrayContainsPropertyBecomesAListMembershipTest() throws {
        let names = ["Paris", "Rome"]
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { names.contains($0.name) })
        #expect(filter == .contains(collection: .list([.string("Paris"), .string("Rome")]), element: property("name")))
    }

    @Test func containsWhereOnAToManyRelationshipBindsVariableOne() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Trip> {
            $0.bucketList.contains { $0.isInPlan && $0.title.contains("Museum") }
        })
        #expect(filter == .anySatisfy(
            property("bucketList"), variable: 1,
            test: .and(element(1, "isInPlan"), .stringTest(.contains, element(1, "title"), .value(.string("Museum"))))))
    }

    @Test func nestedSubqueriesBindSuccessiveVariables() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Trip> {
            $0.bucketList.allSatisfy { item in item.trip?.bucketList.contains { $0.hasReservation } == true }
        })
        #expect(filter == .allSatisfy(
            property("bucketList"), variable: 1,
            test: .comparison(
                .equal,
                .conditional(
                    .comparison(.equal, element(1, "trip"), .value(.null)), then: .value(.null),
                    else: .anySatisfy(element(1, "trip", "bucketList"), variable: 2, test: element(2, "hasReservation"))),
                .value(.bool(true)))))
    }

    @Test func containsWhereOnStoredScalarsBindsTheElementItself() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Specimen> { $0.tags.contains { $0.count > 4 } })
        #expect(filter == .anySatisfy(property("tags"), variable: 1, test: .comparison(.greater, .count(element(1)), .value(.int(4)))))
    }

    @Test func filterCountBecomesCountOfFilter() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { $0.bucketList.filter { !$0.isInPlan }.count > 0 })
        #expect(filter == .comparison(
            .greater, .count(.filter(property("bucketList"), variable: 1, test: .not(element(1, "isInPlan")))), .value(.int(0))))
    }

    @Test func collectionCountAndIsEmptyBecomeCounts() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { $0.bucketList.count >= 2 || $0.bucketList.isEmpty })
        #expect(filter == .or(
            .comparison(.greaterOrEqual, .count(property("bucketList")), .value(.int(2))),
            .comparison(.equal, .count(property("bucketList")), .value(.int(0)))))
    }

    @Test func dictionaryCountAndIsEmptyBecomeCounts() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Specimen> { $0.scores.count > 1 || $0.scores.isEmpty })
        #expect(filter == .or(
            .comparison(.greater, .count(property("scores")), .value(.int(1))),
            .comparison(.equal, .count(property("scores")), .value(.int(0)))))
    }

    @Test func minimumAndMaximumBecomeAggregates() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Specimen> { $0.tags.min() == "lake" && $0.tags.max() != nil })
        #expect(filter == .and(
            .comparison(.equal, .aggregate(.min, property("tags")), .value(.string("lake"))),
            .comparison(.notEqual, .aggregate(.max, property("tags")), .value(.null))))
    }

    // MARK: Ranges

    @Test func rangesBuiltInThePredicateBecomeRangeTests() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { ($0.startDate..<$0.endDate).contains(today) })
        #expect(filter == .rangeContains(
            lower: property("startDate"), upper: property("endDate"), closed: false, element: .value(.date(today))))
        let closed = try PredicateTranslator.translate(#Predicate<Specimen> { (1...3).contains($0.int) })
        #expect(closed == .rangeContains(lower: .value(.int(1)), upper: .value(.int(3)), closed: true, element: property("int")))
    }

    @Test func capturedRangesBecomeRangeTestsOrComparisons() throws {
        let halfOpen = 1..<3
        let from = 5...
        let through = ...7
        let filter = try PredicateTranslator.translate(#Predicate<Specimen> {
            halfOpen.contains($0.int) || from.contains($0.int) || through.contains($0.int)
        })
        #expect(filter == .or(
            .or(
                .rangeContains(lower: .value(.int(1)), upper: .value(.int(3)), closed: false, element: property("int")),
                .comparison(.greaterOrEqual, property("int"), .value(.int(5)))),
            .comparison(.lessOrEqual, property("int"), .value(.int(7)))))
    }

    // MARK: Captured values

    @Test func capturedValuesOfEveryAttributeTypeTakeTheirStoredForm() throws {
        let specimen = Specimen()
        func constant(_ value: Any) throws -> FilterExpression {
            try PredicateTranslator.constant(value, node: "test")
        }
        #expect(try constant(Int8(-8)) == .value(.int(-8)))
        #expect(try constant(UInt64.max) == .value(.int(-1)))
        #expect(try constant(Float(1.25)) == .value(.double(1.25)))
        #expect(try constant(true) == .value(.bool(true)))
        #expect(try constant(specimen.date) == .value(.date(specimen.date)))
        #expect(try constant(specimen.data) == .value(.data(specimen.data)))
        #expect(try constant(specimen.uuid) == .value(.uuid(specimen.uuid)))
        #expect(try constant(specimen.url) == .value(.url(specimen.url)))
        #expect(try constant(specimen.decimal) == .value(.decimal(specimen.decimal)))
        #expect(try constant(Priority.high) == .value(.int(2)))
        #expect(try constant(Mood.calm) == .value(.string("calm")))
        #expect(try constant(Optional<Int>.none) == .value(.null))
        #expect(try constant(Optional(Priority.low)) == .value(.int(0)))
        #expect(try constant(ComparisonResult.orderedDescending) == .value(.int(1)))
        #expect(try constant(specimen.transport) == .value(.codable(try CodableAttributeCoding.encode(specimen.transport))))
        #expect(try constant(specimen.address) == .value(.codable(try CodableAttributeCoding.encode(specimen.address))))
        #expect(try constant(["a", "b"]) == .list([.string("a"), .string("b")]))
        #expect(try constant([Priority.low, .high]) == .list([.int(0), .int(2)]))
        #expect(try constant([Int?.none, 1]) == .list([.null, .int(1)]))
        let trip = Trip(name: "Paris", destination: "France", startDate: today, endDate: today)
        #expect(try constant(trip) == .value(.identifier(trip.persistentModelID)))
        #expect(try constant(trip.persistentModelID) == .value(.identifier(trip.persistentModelID)))
        #expect(try constant([trip]) == .list([.identifier(trip.persistentModelID)]))
    }

    @Test func enumPropertiesCompareWithCapturedEnumsByRawValue() throws {
        let high = Priority.high
        let calm = Mood.calm
        let filter = try PredicateTranslator.translate(#Predicate<Specimen> { $0.priority == high && $0.mood != calm })
        #expect(filter == .and(
            .comparison(.equal, property("priority"), .value(.int(2))),
            .comparison(.notEqual, property("mood"), .value(.string("calm")))))
    }

    @Test func enumRawValueKeyPathReadsTheStoredRawValue() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Specimen> { $0.priority.rawValue >= 1 })
        #expect(filter == .comparison(.greaterOrEqual, property("priority"), .value(.int(1))))
    }

    @Test func codablePropertiesCompareWithCapturedValuesAsJSON() throws {
        let transport = Transport.train(line: "S3")
        let filter = try PredicateTranslator.translate(#Predicate<Specimen> { $0.transport == transport })
        #expect(filter == .comparison(.equal, property("transport"), .value(.codable(try CodableAttributeCoding.encode(transport)))))
    }

    @Test func toOneRelationshipNilTestComparesItsIdentifierWithNull() throws {
        let filter = try PredicateTranslator.translate(#Predicate<BucketListItem> { $0.trip != nil })
        #expect(filter == .comparison(.notEqual, property("trip"), .value(.null)))
    }

    @Test func keyPathsOnCapturedValuesAreFoldedIntoConstants() throws {
        let address = Address(street: "Bahnhofstrasse 1", postcode: "8001")
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { $0.destination == address.street })
        #expect(filter == .comparison(.equal, property("destination"), .value(.string("Bahnhofstrasse 1"))))
    }

    @Test func persistentModelIDAndIDMeanTheModelsIdentifier() throws {
        let trip = Trip(name: "Paris", destination: "France", startDate: today, endDate: today)
        let id = trip.persistentModelID
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { $0.persistentModelID == id || $0.id == id })
        #expect(filter == .or(
            .comparison(.equal, property(), .value(.identifier(id))),
            .comparison(.equal, property(), .value(.identifier(id)))))
        let related = try PredicateTranslator.translate(#Predicate<BucketListItem> { $0.trip?.persistentModelID == id })
        #expect(related == .comparison(.equal, property("trip"), .value(.identifier(id))))
    }

    // MARK: Shapes translated before

    @Test func aShapeTranslatedBeforeReadsEachPredicatesOwnValues() throws {
        func named(_ name: String) -> Predicate<Trip> { #Predicate<Trip> { $0.name == name } }
        for name in ["Paris", "Rome", "", "Zürich", "Paris"] {
            #expect(try PredicateTranslator.translate(named(name)) == .comparison(.equal, property("name"), .value(.string(name))))
        }
        // The shape was kept, so the translations after the first read their values.
        let madrid = named("Madrid")
        guard case .filter(let kept) = PredicateShape.lookUp(madrid.expression, variable: madrid.variable.key, layout: .of(Trip.self)) else {
            Issue.record("no shape was kept for \(madrid)")
            return
        }
        #expect(kept == .comparison(.equal, property("name"), .value(.string("Madrid"))))
        // A captured value of each kind read from the predicate's memory, and a `nil` literal kept.
        func matching(_ int: Int, _ double: Double, _ bool: Bool, _ date: Date, _ uuid: UUID, _ string: String) -> Predicate<Specimen> {
            #Predicate<Specimen> {
                $0.int == int && $0.double < double && $0.bool != bool && ($0.date >= date || $0.uuid == uuid) && !($0.string == string)
                    && $0.optionalString == nil
            }
        }
        for index in 0..<4 {
            let uuid = UUID()
            let date = today.addingTimeInterval(Double(index))
            let filter = try PredicateTranslator.translate(matching(index - 1, Double(index) / 2, index % 2 == 0, date, uuid, "s\(index)"))
            #expect(filter == .and(
                .and(
                    .and(
                        .and(
                            .and(
                                .comparison(.equal, property("int"), .value(.int(Int64(index - 1)))),
                                .comparison(.less, property("double"), .value(.double(Double(index) / 2)))),
                            .comparison(.notEqual, property("bool"), .value(.bool(index % 2 == 0)))),
                        .or(
                            .comparison(.greaterOrEqual, property("date"), .value(date.persistentValue)),
                            .comparison(.equal, property("uuid"), .value(uuid.persistentValue)))),
                    .not(.comparison(.equal, property("string"), .value(.string("s\(index)"))))),
                .comparison(.equal, property("optionalString"), .value(.null))))
        }
    }

    @Test func aShapeAppliesOnlyToTheKeyPathsAndOperatorsItWasTranslatedWith() throws {
        // Each pair is of one expression type; they differ in a key path and in an operator.
        for round in 0..<3 {
            let name = "n\(round)"
            let byName = try PredicateTranslator.translate(#Predicate<Trip> { $0.name == name })
            let byDestination = try PredicateTranslator.translate(#Predicate<Trip> { $0.destination == name })
            #expect(byName == .comparison(.equal, property("name"), .value(.string(name))))
            #expect(byDestination == .comparison(.equal, property("destination"), .value(.string(name))))
            let before = try PredicateTranslator.translate(#Predicate<Trip> { $0.startDate < today })
            let after = try PredicateTranslator.translate(#Predicate<Trip> { $0.startDate > today })
            #expect(before == .comparison(.less, property("startDate"), .value(.date(today))))
            #expect(after == .comparison(.greater, property("startDate"), .value(.date(today))))
        }
    }

    @Test func aShapeAppliesOnlyToPredicatesOnTheirOwnVariable() throws {
        _ = try PredicateTranslator.translate(#Predicate<Trip> { $0.name == "Paris" })
        // The same expression type, on a variable the predicate does not bind.
        let foreign = Predicate<Trip>({ _ in
            PredicateExpressions.build_Equal(
                lhs: PredicateExpressions.build_KeyPath(root: PredicateExpressions.Variable<Trip>(), keyPath: \.name),
                rhs: PredicateExpressions.build_Arg("Paris"))
        })
        #expect(unsupportedDetails(foreign)?.contains("not bound") == true)
    }

    // MARK: The seeds' predicates

    @Test func seedSearchPredicateFoldsAnEmptySearchTextToTrue() throws {
        func search(_ searchText: String) -> Predicate<Trip> {
            #Predicate<Trip> { searchText.isEmpty ? true : $0.name.localizedStandardContains(searchText) }
        }
        #expect(try PredicateTranslator.translate(search("")) == .value(.bool(true)))
        #expect(try PredicateTranslator.translate(search("par"))
            == .stringTest(.localizedStandardContains, property("name"), .value(.string("par"))))
    }

    @Test func seedCompoundSearchPredicateSearchesNameOrDestination() throws {
        let searchText = "par"
        let filter = try PredicateTranslator.translate(#Predicate<Trip> {
            searchText.isEmpty
                ? true : $0.name.localizedStandardContains(searchText) || $0.destination.localizedStandardContains(searchText)
        })
        #expect(filter == .or(
            .stringTest(.localizedStandardContains, property("name"), .value(.string("par"))),
            .stringTest(.localizedStandardContains, property("destination"), .value(.string("par")))))
    }

    /// The seed writes the second half as `unplannedItemsExpression.evaluate(trip.bucketList) > 0`;
    /// Foundation's macro on Linux rejects `evaluate(_:)` and its `Expression` is not `Codable`,
    /// so the expression is written inline.
    @Test func seedCurrentTripPredicateTestsTheDateRangeAndUnplannedItems() throws {
        let filter = try PredicateTranslator.translate(#Predicate<Trip> { trip in
            (trip.startDate..<trip.endDate).contains(today) && trip.bucketList.filter { !$0.isInPlan }.count > 0
        })
        #expect(filter == .and(
            .rangeContains(lower: property("startDate"), upper: property("endDate"), closed: false, element: .value(.date(today))),
            .comparison(.greater, .count(.filter(property("bucketList"), variable: 1, test: .not(element(1, "isInPlan")))), .value(.int(0)))))
    }

    // MARK: What does not translate

    @Test func computedPropertyIsRejectedNamingTheKeyPath() {
        let details = unsupportedDetails(#Predicate<Specimen> { $0.summary == "x" })
        #expect(details?.hasPrefix("PredicateExpressions.KeyPath:") == true)
        #expect(details?.contains("Specimen") == true)
        #expect(details?.contains("not a persisted property") == true)
    }

    @Test func transientPropertyIsRejected() {
        let details = unsupportedDetails(#Predicate<Specimen> { $0.viewCount > 0 })
        #expect(details?.contains("not a persisted property") == true)
    }

    @Test func aPredicateBuiltAgainWithOtherCapturedValuesTranslatesWithThoseValues() throws {
        // Node types and scalar constants are recognised from caches after the first time.
        func filter(_ int: Int, _ double: Double, _ text: String, _ flag: Bool, _ date: Date, _ uuid: UUID, _ uint: UInt) throws -> FilterExpression {
            try PredicateTranslator.translate(#Predicate<Specimen> {
                $0.int == int && $0.double == double && $0.string == text && $0.bool == flag && $0.date == date && $0.uuid == uuid
                    && $0.uint == uint
            })
        }
        func expected(_ values: [PersistentValue]) -> FilterExpression {
            let names = ["int", "double", "string", "bool", "date", "uuid", "uint"]
            let comparisons = zip(names, values).map { FilterExpression.comparison(.equal, property($0), .value($1)) }
            return comparisons.dropFirst().reduce(comparisons[0]) { .and($0, $1) }
        }
        let first = UUID(), second = UUID()
        #expect(try filter(1, 1.5, "a", true, today, first, 7)
            == expected([.int(1), .double(1.5), .string("a"), .bool(true), .date(today), .uuid(first), .int(7)]))
        #expect(try filter(-2, 0, "b", false, today + 1, second, .max)
            == expected([.int(-2), .double(0), .string("b"), .bool(false), .date(today + 1), .uuid(second), .int(-1)]))
    }

    @Test func anUntranslatableNodeIsNamedEveryTimeItIsMet() {
        for _ in 0..<2 {
            let details = unsupportedDetails(#Predicate<Trip> { $0.livingAccommodation!.placeName == "x" })
            #expect(details?.hasPrefix("PredicateExpressions.ForcedUnwrap:") == true)
        }
    }

    @Test func forcedUnwrapIsRejectedNamingTheNode() {
        let details = unsupportedDetails(#Predicate<Trip> { $0.livingAccommodation!.placeName == "x" })
        #expect(details?.hasPrefix("PredicateExpressions.ForcedUnwrap:") == true)
    }

    @Test func typeCheckIsRejectedNamingTheNode() {
        let details = unsupportedDetails(#Predicate<Specimen> { $0.optionalString is String })
        #expect(details?.hasPrefix("PredicateExpressions.TypeCheck:") == true)
    }

    @Test func firstOfACollectionIsRejected() {
        let details = unsupportedDetails(#Predicate<Specimen> { $0.tags.first == "lake" })
        #expect(details?.contains("`first` and `last`") == true)
    }

    @Test func keyPathIntoACodableStructIsRejected() {
        let details = unsupportedDetails(#Predicate<Specimen> { $0.address.street == "x" })
        #expect(details?.hasPrefix("PredicateExpressions.KeyPath:") == true)
    }

    @Test func orderingUInt64ValuesIsRejectedBecauseTheyAreStoredByBitPattern() {
        let limit: UInt64 = 5
        let details = unsupportedDetails(#Predicate<Specimen> { $0.uint64 > limit })
        #expect(details?.hasPrefix("PredicateExpressions.Comparison:") == true)
        #expect(details?.contains("bit pattern") == true)
    }

    @Test func subscriptingACollectionIsRejected() {
        let details = unsupportedDetails(#Predicate<Specimen> { $0.tags[0] == "lake" })
        #expect(details?.hasPrefix("PredicateExpressions.CollectionIndexSubscript:") == true)
    }

    // MARK: Sort descriptors

    @Test func sortDescriptorsOnStoredAttributesBecomeSortKeys() throws {
        let keys = try PredicateTranslator.translate([
            SortDescriptor(\Trip.startDate), SortDescriptor(\Trip.name, order: .reverse),
            SortDescriptor(\Trip.destination, comparator: .lexical),
        ])
        #expect(keys == [
            FilterSortKey(path: ["startDate"], ascending: true, stringOrder: nil),
            FilterSortKey(path: ["name"], ascending: false, stringOrder: nil),
            FilterSortKey(path: ["destination"], ascending: true, stringOrder: nil),
        ])
    }

    @Test func sortDescriptorOnAnOptionalAttributeBecomesASortKey() throws {
        let keys = try PredicateTranslator.translate([SortDescriptor(\Specimen.optionalInt, order: .reverse)])
        #expect(keys == [FilterSortKey(path: ["optionalInt"], ascending: false, stringOrder: nil)])
    }

    @Test func sortDescriptorOnAComputedPropertyIsRejected() {
        #expect(throws: SwiftDataError.unsupportedSortDescriptor) {
            try PredicateTranslator.translate([SortDescriptor(\Specimen.summary)])
        }
    }

    @Test func sortDescriptorOnUInt64IsRejectedNamingTheDescriptor() throws {
        do {
            _ = try PredicateTranslator.translate([SortDescriptor(\Specimen.uint64)])
            Issue.record("expected an error")
        } catch let error as SwiftDataError {
            #expect(error == SwiftDataError.unsupportedSortDescriptor)
            #expect(error.details.contains("SortDescriptor<Specimen>"))
            #expect(error.details.contains("bit pattern"))
        }
    }
}

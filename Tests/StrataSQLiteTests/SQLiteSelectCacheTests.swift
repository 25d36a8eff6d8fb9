import Foundation
import Testing

@testable import StrataCore
@testable import StrataSQLite

/// `filter` with every constant the cache takes out changed to another of its class.
private func otherConstants(_ filter: FilterExpression) -> FilterExpression {
    filter.replacingValues { value in
        switch value {
        case .string(let text): .string(text + "x")
        case .int(let number) where number != 0: .int(number == -1 ? -2 : number + 1)
        case .double(let number) where number != 0 && !number.isNaN: .double(number * 2)
        case .date(let date): .date(date + 1)
        case .uuid: .uuid(UUID())
        default: value
        }
    }
}

@Suite struct SQLiteSelectCacheTests {
    @Test(arguments: crossCheckFilters)
    func aShapeCompiledForOtherConstantsSelectsWhatTheEvaluatorSelects(_ check: CrossCheckCase) throws {
        let world = try CompilerWorld()
        _ = try? world.sqlKeys(check.entity, otherConstants(check.filter))
        let cached = try world.compiler.identifiers(entity: check.entity, filter: check.filter, sort: [], limit: nil, offset: nil)
        let fresh = try world.compiler.compileSelect(
            entity: check.entity, columns: ["t0.\"_pk\""], filter: check.filter, sort: [])
        #expect(cached.sql == fresh.sql)
        #expect(cached.bindings == fresh.bindings)
        #expect(try world.sqlKeys(check.entity, check.filter) == (try world.evaluatorKeys(check.entity, check.filter)))
    }

    @Test func aRepeatedShapeIsCompiledOnceAndBindsTheNewConstants() throws {
        let world = try CompilerWorld()
        let name = { (text: String) in FilterExpression.comparison(.equal, .property(variable: 0, path: ["name"]), .value(.string(text))) }
        let paris = try world.compiler.select(entity: "Trip", columns: ["t0.\"_pk\""], filter: name("Paris"), sort: [], limit: 2, offset: nil)
        let rome = try world.compiler.select(entity: "Trip", columns: ["t0.\"_pk\""], filter: name("Rome"), sort: [], limit: 5, offset: 1)
        #expect(world.compiler.selects.count == 1)
        #expect(rome.sql == paris.sql.replacingOccurrences(of: "LIMIT ?", with: "LIMIT ? OFFSET ?"))
        #expect(paris.bindings == [.text("Paris"), .integer(2)])
        #expect(rome.bindings == [.text("Rome"), .integer(5), .integer(1)])
    }

    @Test func constantsThatShapeTheSQLStayInTheShape() throws {
        let world = try CompilerWorld()
        let compiler = world.compiler, columns = ["t0.\"_pk\""]
        func expectFresh(_ filter: FilterExpression) throws {
            let query = try compiler.select(entity: "Specimen", columns: columns, filter: filter, sort: [], limit: nil, offset: nil)
            let fresh = try compiler.compileSelect(entity: "Specimen", columns: columns, filter: filter, sort: [])
            #expect(query.sql == fresh.sql)
            #expect(query.bindings == fresh.bindings)
        }
        // `== nil` is `IS NULL`: nil, zero and other integers are three shapes.
        for value in [PersistentValue.null, .int(0), .int(5), .int(9)] {
            try expectFresh(.comparison(.equal, .property(variable: 0, path: ["optionalInt"]), .value(value)))
        }
        #expect(compiler.selects.count == 3)
        // Dividing a Double by a constant compiles only when the constant is not zero.
        let quotient = { (divisor: Double) in
            FilterExpression.comparison(
                .greater, .arithmetic(.divide, .property(variable: 0, path: ["double"]), .value(.double(divisor))), .value(.double(1)))
        }
        try expectFresh(quotient(2.5))
        try expectFresh(quotient(7))
        for _ in 0..<2 {
            #expect(throws: DataStoreError.preferInMemoryFilter) {
                try compiler.select(entity: "Specimen", columns: columns, filter: quotient(0), sort: [], limit: nil, offset: nil)
            }
        }
        #expect(compiler.selects.count == 5)
    }

    @Test func aNaNConstantIsCompiledEveryTimeAndNeverKept() throws {
        let world = try CompilerWorld()
        let filter = FilterExpression.comparison(.equal, .property(variable: 0, path: ["budget"]), .value(.double(.nan)))
        for _ in 0..<3 {
            #expect(throws: DataStoreError.preferInMemoryFilter) {
                try world.compiler.select(entity: "Trip", columns: ["t0.\"_pk\""], filter: filter, sort: [], limit: nil, offset: nil)
            }
        }
        #expect(world.compiler.selects.count == 0)
    }

    @Test func aShapeWhoseSQLDependsOnAConstantsValueIsRefused() {
        let shape = FilterExpression.comparison(.equal, .property(variable: 0, path: ["name"]), .value(.string("")))
        func constant(_ filter: FilterExpression?) -> String {
            guard case .comparison(_, _, .value(.string(let text)))? = filter else { return "" }
            return text
        }
        // Text derived from the value (its length inlined), a binding derived from it, and a plain binding.
        let inlined = SQLiteSelectCache.entry(for: shape, constants: [.string("Paris")]) {
            SQLiteQuery(sql: "length = \(constant($0).count)")
        }
        let derived = SQLiteSelectCache.entry(for: shape, constants: [.string("Paris")]) {
            SQLiteQuery(sql: "name = ?", bindings: [.text(constant($0).uppercased())])
        }
        let plain = SQLiteSelectCache.entry(for: shape, constants: [.string("Paris")]) {
            SQLiteQuery(sql: "name = ? AND kind = ?", bindings: [.text(constant($0)), .integer(3)])
        }
        #expect(inlined == nil)
        #expect(derived == nil)
        let recipe = plain.map { entry in entry.bindings.map { binding -> String in
            switch binding {
            case .constant(let index): "constant \(index)"
            case .fixed(let value): "fixed \(value)"
            }
        } }
        #expect(recipe == ["constant 0", "fixed integer(3)"])
    }
}

import Foundation
import SubLedgerCore
import Testing

/// Apps opt in to Xcode and local-testing data per environment, and never together with production.
@Suite struct CatalogEnvironmentTests {
    func app(_ environments: String) throws -> App {
        let json = #"{"apps": [{"bundle_id": "a", "environments": \#(environments), "products": []}]}"#
        return try #require(try JSONDecoder().decode(Catalog.self, from: Data(json.utf8)).apps.first)
    }

    @Test func unverifiableEnvironmentsAreNamedInAnySpelling() throws {
        #expect(try app(#"["sandbox", "xcode", "local_testing"]"#).environments == [.sandbox, .xcode, .localTesting])
        #expect(try app(#"["Sandbox", "Xcode", "LocalTesting"]"#).environments == [.sandbox, .xcode, .localTesting])
        #expect(try app(#"["sandbox", "xcode"]"#).validationErrors.isEmpty)
        #expect(try app(#"["localtesting"]"#).validationErrors.isEmpty)
    }

    @Test(arguments: [#"["production", "xcode"]"#, #"["Production", "Sandbox", "LocalTesting"]"#])
    func productionAppMayNotAcceptUnverifiableData(environments: String) throws {
        let errors = try app(environments).validationErrors
        #expect(errors.map(\.code) == [.unverifiableEnvironmentWithProduction])
        #expect(errors.first?.subject == "a")
        #expect(throws: CatalogError.self) { try Catalog(apps: [try app(environments)]).validate() }
    }

    @Test func defaultAcceptsProductionOnly() throws {
        let json = #"{"apps": [{"bundle_id": "a", "products": []}]}"#
        let app = try #require(try JSONDecoder().decode(Catalog.self, from: Data(json.utf8)).apps.first)
        #expect(app.environments == [.production])
        #expect(!app.environments.contains(.xcode) && !app.environments.contains(.localTesting))
    }
}

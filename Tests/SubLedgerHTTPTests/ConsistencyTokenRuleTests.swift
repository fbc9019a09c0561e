import Foundation
import HTTPTypes
import Logging
import SubLedgerUseCases
import Testing

@testable import SubLedgerCommands
@testable import SubLedgerHTTP

/// Which responses carry `SubLedger-Consistency-Token` (docs/guides/scale-out.md, "Read replicas").
@Suite struct ConsistencyTokenRuleTests {
    /// A process's stores: every store module, registered as `serve` registers them.
    static let registry = (try? StoreModules.registry(logger: Logger(label: "test"))) ?? StoreRegistry()

    /// The push routes of a process with every store module registered.
    static let pushPaths = registry.pushPathsWithoutConsistencyToken

    /// Every registered store's push route.
    static let storePushes = Set(registry.stores.compactMap { registry[$0]?.pushRoute?.path })

    static func carriesToken(method: HTTPRequest.Method, status: Int, path: String) -> Bool {
        ConsistencyTokenMiddleware.carriesToken(method: method, status: status, path: path, pushPaths: pushPaths)
    }

    @Test func aSuccessfulWriteCarriesOneAndAReadOrARefusalDoesNot() {
        #expect(Self.carriesToken(method: .post, status: 200, path: "/v1/receipts"))
        #expect(Self.carriesToken(method: .delete, status: 204, path: "/v1/webhooks/endpoints/x"))
        #expect(
            !Self.carriesToken(method: .get, status: 200, path: "/v1/accounts/a/entitlements"))
        #expect(!Self.carriesToken(method: .post, status: 422, path: "/v1/receipts"))
    }

    /// No store reads a token, so no store's push pays the WAL position's round trip (Google's did, then Stripe's).
    /// The pushes are every route openapi.yaml documents under `/v1/notifications/`, so a store added there is held
    /// to the rule too.
    @Test func noStorePushCarriesOne() throws {
        let document = try String(
            contentsOf: ErrorCodeCatalogTests.repository.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        let pushes = document.split(separator: "\n").filter { $0.hasPrefix("  /v1/notifications/") }.map {
            String($0.dropFirst(2).dropLast())
        }
        // Each store module's push route is documented, and nothing else is documented there.
        #expect(Self.storePushes.count == Self.registry.stores.count)
        #expect(Set(pushes) == Self.storePushes)
        for path in pushes {
            #expect(!Self.carriesToken(method: .post, status: 200, path: path), "\(path)")
        }
    }

    /// A registered store's push route is exempt by its registration (`StorePushRoute.carriesConsistencyToken`), not
    /// by a list kept here: without the stores registered their routes are writes like any other.
    @Test(arguments: ConsistencyTokenRuleTests.storePushes.sorted())
    func aRegisteredStoresPushRuleComesFromItsRegistration(path: String) {
        #expect(Self.pushPaths.contains(path))
        #expect(!StoreRegistry().pushPathsWithoutConsistencyToken.contains(path))
        #expect(StoreRegistry().pushPathsWithoutConsistencyToken.isEmpty)
    }
}

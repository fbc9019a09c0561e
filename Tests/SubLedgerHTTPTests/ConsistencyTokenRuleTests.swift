import AppStoreStore
import Foundation
import GooglePlayStore
import HTTPTypes
import Logging
import PaddleStore
import StripeStore
import SubLedgerUseCases
import Testing

@testable import SubLedgerHTTP

/// Which responses carry `SubLedger-Consistency-Token` (docs/guides/scale-out.md, "Read replicas").
@Suite struct ConsistencyTokenRuleTests {
    /// The push routes of a process with every store module registered.
    static let pushPaths = StoreRegistry(
        [
            try? AppStoreRegistration(configuration: AppleConfiguration(), logger: Logger(label: "test")),
            GooglePlayRegistration(logger: Logger(label: "test")), StripeRegistration(logger: Logger(label: "test")),
            PaddleRegistration(logger: Logger(label: "test")),
        ].compactMap { (registration: (any StoreRegistration)?) in registration }
    ).pushPathsWithoutConsistencyToken

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
        #expect(
            Set(pushes) == [
                "/v1/notifications/appstore", "/v1/notifications/google", "/v1/notifications/stripe",
                "/v1/notifications/paddle",
            ])
        for path in pushes {
            #expect(!Self.carriesToken(method: .post, status: 200, path: path), "\(path)")
        }
    }

    /// A registered store's push route is exempt by its registration (`StorePushRoute.carriesConsistencyToken`), not
    /// by a list kept here: without the stores registered their routes are writes like any other.
    @Test(arguments: [
        "/v1/notifications/appstore", "/v1/notifications/google", "/v1/notifications/stripe",
        "/v1/notifications/paddle",
    ])
    func aRegisteredStoresPushRuleComesFromItsRegistration(path: String) {
        #expect(Self.pushPaths.contains(path))
        #expect(!StoreRegistry().pushPathsWithoutConsistencyToken.contains(path))
        #expect(StoreRegistry().pushPathsWithoutConsistencyToken.isEmpty)
    }
}

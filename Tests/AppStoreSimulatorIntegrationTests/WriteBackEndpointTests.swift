import AppStore
import AppStoreClients
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// Set App Account Token (API 1.16) and Finish Transaction (API 1.20) against appstore-sim through SubLedger's own
/// client: what Apple accepts, what it refuses with which error, and what changes after (the chain's later payloads
/// carry the token; a finished transaction leaves the device's unfinished transactions).
@Suite struct WriteBackEndpointTests {
    static func payload(_ token: String?) throws -> JWSTransactionDecodedPayload {
        try JSONDecoder().decode(JWSTransactionDecodedPayload.self, from: try CompactJWS(try #require(token)).payload)
    }

    static func refusal(_ call: () async throws -> Void) async -> AppStoreServerAPIError? {
        do {
            try await call()
            return nil
        } catch {
            return error as? AppStoreServerAPIError
        }
    }

    @Test func aTokenSetOnAnOriginalTransactionIsCarriedByTheChainsLaterTransactions() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("offer@example.com")
            let bought = try await fixture.buy("offer@example.com", "pro.monthly")
            let original = try #require(bought.originalTransactionID)
            #expect(try Self.payload(bought.signedTransaction).appAccountToken == nil)
            let client = try fixture.serverAPIClient()
            let token = "7D3A1F0E-2B4C-4D5E-8F6A-9B0C1D2E3F4A"
            try await client.setAppAccountToken(originalTransactionID: original, appAccountToken: token)
            // The original transaction now states it, lower-cased as Apple's UUIDs are.
            let info = try await client.transactionInfo(transactionID: original)
            #expect(info.appAccountToken == token.lowercased())
            _ = try await fixture.advance(days: 3)
            let renewal = try await fixture.action("/control/subscriptions/\(original)/renew")
            #expect(try Self.payload(renewal.signedTransaction).appAccountToken == token.lowercased())
            let received = fixture.simulator.control.serverWriteBacks()
            #expect(received.map(\.kind) == [.setAppAccountToken])
            #expect(received.map(\.transactionID) == [original])

            // Apple's refusals: a renewal's id, a token that is no UUID, an unknown id, a malformed id.
            let renewalID = try #require(renewal.transactionID)
            let notOriginal = await Self.refusal {
                try await client.setAppAccountToken(originalTransactionID: renewalID, appAccountToken: token)
            }
            #expect(notOriginal?.apiErrorCode == 4_000_187)
            #expect(notOriginal?.httpStatus == 400)
            let notUUID = await Self.refusal {
                try await client.setAppAccountToken(originalTransactionID: original, appAccountToken: "dana")
            }
            #expect(notUUID?.apiErrorCode == 4_000_183)
            let unknown = await Self.refusal {
                try await client.setAppAccountToken(originalTransactionID: "9999999999", appAccountToken: token)
            }
            #expect(unknown?.code == .transactionIDNotFound)
            let malformed = await Self.refusal {
                try await client.setAppAccountToken(originalTransactionID: "12ab", appAccountToken: token)
            }
            #expect(malformed?.apiErrorCode == 4_000_006)
            #expect(fixture.simulator.control.serverWriteBacks().count == 1)
        }
    }

    @Test func familySharedTransactionsAreRefused() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("organizer@example.com")
            _ = try await fixture.createAppleID("member@example.com")
            let bought = try await fixture.buy("organizer@example.com", "lifetime")
            let shared = try await fixture.action(
                "/control/transactions/\(try #require(bought.transactionID))/family-share",
                body: ["apple_id": "member@example.com"])
            let sharedID = try #require(shared.transactionID)
            #expect(try Self.payload(shared.signedTransaction).inAppOwnershipType == .familyShared)
            let refused = await Self.refusal {
                try await fixture.serverAPIClient().setAppAccountToken(
                    originalTransactionID: sharedID, appAccountToken: "7d3a1f0e-2b4c-4d5e-8f6a-9b0c1d2e3f4a")
            }
            #expect(refused?.apiErrorCode == 4_000_185)
        }
    }

    @Test func finishingATransactionStopsItsRedeliveryToTheDevice() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("gamer@example.com")
            let coins = try await fixture.buy("gamer@example.com", "coins")
            let lifetime = try await fixture.buy("gamer@example.com", "lifetime")
            let control = fixture.simulator.control
            var unfinished = try control.unfinishedTransactions(
                appleID: "gamer@example.com", bundleID: SimulatorFixture.bundleID)
            #expect(
                try unfinished.signedTransactions.map { try Self.payload($0).transactionID }
                    == [coins.transactionID, lifetime.transactionID])
            let client = try fixture.serverAPIClient()
            try await client.finishTransaction(transactionID: try #require(coins.transactionID))
            // A repeat is answered the same, and changes nothing more.
            try await client.finishTransaction(transactionID: try #require(coins.transactionID))
            unfinished = try control.unfinishedTransactions(
                appleID: "gamer@example.com", bundleID: SimulatorFixture.bundleID)
            #expect(
                try unfinished.signedTransactions.map { try Self.payload($0).transactionID } == [lifetime.transactionID]
            )
            let unknown = await Self.refusal { try await client.finishTransaction(transactionID: "9999999999") }
            #expect(unknown?.code == .transactionIDNotFound)
            #expect(control.serverWriteBacks().map(\.kind) == [.finishTransaction, .finishTransaction])
        }
    }
}

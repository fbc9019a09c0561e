import Foundation
import GooglePlay
import GooglePlayClients
import GooglePlaySimulator
import SubLedgerCore
import Testing
import _CryptoExtras

@Suite struct AccessTokenProviderTests {
    @Test func aTokenIsReusedUntilFiveMinutesBeforeItExpires() async throws {
        try await ClientFixture.with { fixture in
            let purchase = try await fixture.buy("pro", basePlanId: "monthly")
            let first = try await fixture.tokens.accessToken()
            // Two API calls, and no exchange between them: with the token endpoint failing, they still succeed.
            try fixture.simulator.control.setFault(FaultRule(kind: "http_500"), for: .token)
            _ = try await fixture.api.subscriptionV2(
                packageName: ClientFixture.packageName, token: purchase.purchaseToken)
            _ = try await fixture.api.subscriptionV2(
                packageName: ClientFixture.packageName, token: purchase.purchaseToken)
            // Google's token lives 3599 s; 5 minutes before that it is still used.
            fixture.clock.advance(seconds: 3599 - 300 - 1)
            #expect(try await fixture.tokens.accessToken() == first)

            // Within the margin the provider exchanges again: the failing endpoint shows it tried.
            fixture.clock.advance(seconds: 1)
            let failure = await #expect(throws: GooglePlayAPIError.self) { try await fixture.tokens.accessToken() }
            #expect(failure?.code == .serverError)
            #expect(failure?.isRetryable == true)
            fixture.simulator.control.clearFaults()
            let second = try await fixture.tokens.accessToken()
            #expect(second != first)
            #expect(try await fixture.tokens.accessToken() == second)
        }
    }

    @Test func concurrentCallersShareOneExchange() async throws {
        try await ClientFixture.with { fixture in
            // The simulator issues a different random token per exchange: one token for all means one exchange.
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<16 { group.addTask { try await fixture.tokens.accessToken() } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)

            // After expiry, one failing exchange fails every caller waiting on it.
            fixture.clock.advance(seconds: 3600)
            try fixture.simulator.control.setFault(FaultRule(kind: "http_503", remaining: 1), for: .token)
            let codes = await withTaskGroup(of: GooglePlayAPIError.Code?.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        do throws(GooglePlayAPIError) {
                            _ = try await fixture.tokens.accessToken()
                            return nil
                        } catch {
                            return error.code
                        }
                    }
                }
                return await group.reduce(into: [GooglePlayAPIError.Code?]()) { $0.append($1) }
            }
            // Every caller that joined the failed exchange failed with it; a caller arriving after it settled
            // started a new exchange, which the one-shot fault no longer fails.
            #expect(codes.contains(.serverError))
            #expect(codes.allSatisfy { $0 == nil || $0 == .serverError })
            let fresh = try await fixture.tokens.accessToken()
            #expect(!tokens.contains(fresh))
        }
    }

    @Test func aKeyTheSimulatorNeverIssuedIsRefusedAsInvalidGrant() async throws {
        try await ClientFixture.with { fixture in
            let real = fixture.simulator.serviceAccountKey
            let stranger = ServiceAccountKey(
                projectID: nil, privateKeyID: real.privateKeyID, clientEmail: real.clientEmail, clientID: nil,
                tokenURI: real.tokenURI, privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048))
            let failure = await #expect(throws: GooglePlayAPIError.self) {
                try await fixture.provider(key: stranger).accessToken()
            }
            #expect(failure?.code == .invalidGrant)
            #expect(failure?.oauthError == "invalid_grant")
            #expect(failure?.httpStatus == 400)
            #expect(failure?.isRetryable == false)
            // The description names the code, never Google's message.
            #expect(
                failure.map { String(describing: $0) } == "GooglePlayAPIError(invalidGrant, HTTP 400, invalid_grant)")

            // Another account's email is refused as well.
            var impostor = real
            impostor.clientEmail = "someone-else@play-sim.iam.gserviceaccount.com"
            let refused = await #expect(throws: GooglePlayAPIError.self) {
                try await fixture.provider(key: impostor).accessToken()
            }
            #expect(refused?.code == .invalidGrant)
        }
    }

    @Test func anAccessTokenTheAPIRefusesIsReplacedOnce() async throws {
        try await ClientFixture.with(separateSimulatorClock: true) { fixture in
            let purchase = try await fixture.buy("pro", basePlanId: "monthly")
            let first = try await fixture.tokens.accessToken()
            // At Google the token has expired (3620 s > 3599 s) while the provider still thinks it fresh; the
            // assertion it signs next is still within the endpoint's 60 s leeway.
            fixture.simulatorClock.advance(seconds: 3620)
            let read = try await fixture.api.subscriptionV2(
                packageName: ClientFixture.packageName, token: purchase.purchaseToken)
            #expect(read.lineItems?.first?.productId == "pro")
            #expect(try await fixture.tokens.accessToken() != first)
        }
    }
}

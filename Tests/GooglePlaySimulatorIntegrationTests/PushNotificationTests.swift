import Foundation
import GooglePlay
import GooglePlaySimulator
import HTTPTestSupport
import SubLedgerCore
import Synchronization
import Testing
import _CryptoExtras

@Suite struct PushNotificationTests {
    @Test func pushTokensVerifyWithTheSimulatorsJWKS() async throws {
        try await PlayFixture.with { fixture in
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            let push = try #require(try fixture.pushes().first)
            #expect(push.notification.subscriptionNotification?.purchaseToken == bought.purchaseToken)
            let verifier = try await fixture.pushVerifier()
            let claims = try verifier.verify(authorization: push.authorization, now: WallClock.now())
            #expect(claims.email == "rtdn-push@play-sim.iam.gserviceaccount.com")
            #expect(claims.issuer == "https://accounts.google.com")
            // The same JWKS is served for export under /control/jwks.
            let exported = try JSONWebKeySet(
                jsonData: try await fixture.send(.GET, fixture.simulator.baseURL + "/control/jwks").body)
            #expect(Set(exported.keys.keys) == Set(fixture.simulator.pushKeySet.keys.keys))
        }
    }

    @Test func forgedExpiredAndMisaddressedPushTokensAreRefused() async throws {
        try await PlayFixture.with { fixture in
            _ = try await fixture.buy("pro", basePlanId: "monthly")
            let push = try #require(try fixture.pushes().first)
            let token = try CompactJWT.bearerToken(fromAuthorization: push.authorization)
            let jwt = try CompactJWT(token)
            let verifier = try await fixture.pushVerifier()
            let now = WallClock.now()

            #expect(throws: JWTVerificationError(.expired)) {
                try verifier.verify(token, now: now.adding(milliseconds: 2 * 3_600_000))
            }
            #expect(throws: JWTVerificationError(.invalidAudience)) {
                try PubSubPushTokenVerifier(
                    configuration: .init(
                        audience: "https://elsewhere.example.com",
                        serviceAccountEmail: verifier.configuration.serviceAccountEmail),
                    keys: verifier.keys
                ).verify(token, now: now)
            }
            // Same kid, another key: a forger who knows the key id but not the key.
            let forger = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let claims = try JSONDecoder().decode(PushClaims.self, from: jwt.payload)
            let forged = try RS256.sign(header: jwt.header, claims: claims, with: forger)
            // The genuine claims re-signed by the genuine key still verify: the refusal is the key's.
            #expect(throws: Never.self) { try verifier.verify(token, now: now) }
            #expect(throws: JWTVerificationError(.invalidSignature)) { try verifier.verify(forged, now: now) }
            // The simulator's own key, but pushing as another service account.
            let changed = try await fixture.control(
                .PATCH, "/control/notifications/settings",
                NotificationSettingsUpdate(serviceAccountEmail: "someone-else@example.iam.gserviceaccount.com"))
            let settings = try changed.decode(NotificationSettingsDescription.self, control: true)
            #expect(settings.serviceAccountEmail == "someone-else@example.iam.gserviceaccount.com")
            #expect(settings.audience == fixture.receiver.baseURL + PlayFixture.pushPath)
            _ = try await fixture.buy("coins")
            let other = try #require(try fixture.pushes().last)
            #expect(throws: JWTVerificationError(.invalidEmail)) {
                try verifier.verify(authorization: other.authorization, now: now)
            }
            // Unauthenticated pushes carry no token at all.
            _ = try await fixture.control(
                .PATCH, "/control/notifications/settings", NotificationSettingsUpdate(unauthenticated: true))
            _ = try await fixture.buy("coins")
            let bare = try #require(try fixture.pushes().last)
            #expect(bare.authorization == nil)
            #expect(throws: JWTVerificationError(.missingToken)) {
                try verifier.verify(authorization: bare.authorization, now: now)
            }
        }
    }

    @Test func droppedNotificationsAreNeverPushedAndFailedPushesAreRetried() async throws {
        try await PlayFixture.with { fixture in
            _ = try await fixture.control(
                .PATCH, "/control/notifications/settings", NotificationSettingsUpdate(drop: true))
            let dropped = try await fixture.buy("coins")
            #expect(try fixture.pushes().isEmpty)
            _ = try await fixture.control(
                .PATCH, "/control/notifications/settings", NotificationSettingsUpdate(drop: false))
            try await fixture.advance(hours: 1)
            #expect(try fixture.pushes().isEmpty)

            fixture.receiverStatus.value.withLock { $0 = 503 }
            let failing = try await fixture.buy("lifetime")
            #expect(fixture.receiver.requests.count == 1)
            fixture.receiverStatus.value.withLock { $0 = 200 }
            try await fixture.advance(hours: 0)
            #expect(fixture.receiver.requests.count == 1)
            try await fixture.advance(hours: 1)
            #expect(fixture.receiver.requests.count == 2)

            let records = try await fixture.send(.GET, fixture.simulator.baseURL + "/control/notifications")
                .decode([NotificationRecord].self, control: true)
            let droppedRecord = try #require(records.first { $0.messageId == dropped.messageIds.first })
            #expect(droppedRecord.dropped && droppedRecord.attempts.isEmpty)
            // `data` is the notification as it would have been pushed, in Google's field names.
            let data = try #require(Data(base64Encoded: droppedRecord.data))
            #expect(String(decoding: data, as: UTF8.self).contains(#""oneTimeProductNotification""#))
            #expect(try DeveloperNotificationDecoder.decode(notificationData: data) == droppedRecord.notification)
            let retried = try #require(records.first { $0.messageId == failing.messageIds.first })
            #expect(retried.attempts.map(\.result) == ["http_error", "acknowledged"])
            #expect(retried.acknowledged)
        }
    }

    @Test func aReceiverThatCallsBackDuringThePushGetsEachMessageOnce() async throws {
        try await PlayFixture.with { fixture in
            let token = try await fixture.accessToken()
            let looked = Counter()
            // As a backend does: on each push, read the purchase from the Developer API before answering.
            fixture.receiverStatus.onPush.withLock {
                $0 = { request in
                    guard
                        let push = try? DeveloperNotificationDecoder.decode(pushBody: request.body).notification,
                        let purchaseToken = push.subscriptionNotification?.purchaseToken
                    else { return }
                    let route = AndroidPublisherRoute.getSubscriptionV2(
                        packageName: PlayFixture.packageName, token: purchaseToken)
                    if let answer = try? await fixture.send(
                        .GET, fixture.simulator.developerAPIBaseURL + route.path,
                        headers: [("Authorization", "Bearer " + token)]), answer.status == 200
                    {
                        looked.increment()
                    }
                }
            }
            let bought = try await fixture.buy("pro", basePlanId: "monthly")
            try await fixture.acknowledge(bought)
            try await fixture.advance(days: 31)
            #expect(try fixture.pushedTypes(bought.purchaseToken) == [.purchased, .renewed])
            #expect(looked.value == 2)
        }
    }

    @Test func testNotificationIsPushed() async throws {
        try await PlayFixture.with { fixture in
            let answer = try await fixture.control(
                .POST, "/control/notifications/test", ["package_name": PlayFixture.packageName])
            #expect(answer.status == 200)
            let push = try #require(try fixture.pushes().first)
            #expect(push.notification.content == .test(TestNotification()))
        }
    }
}

/// A count shared with a receiver's handler.
final class Counter: Sendable {
    private let count = Mutex(0)
    var value: Int { count.withLock { $0 } }
    func increment() { count.withLock { $0 += 1 } }
}

/// The claims of a push token, decoded to be re-signed by a forger.
struct PushClaims: Codable {
    var aud: String
    var azp: String?
    var email: String
    var email_verified: Bool
    var exp: Int64
    var iat: Int64
    var iss: String
    var sub: String?
}

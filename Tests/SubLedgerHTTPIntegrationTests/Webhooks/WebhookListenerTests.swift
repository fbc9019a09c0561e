import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerUseCases
import Synchronization
import Testing

/// `subledger webhooks listen` over loopback: a signed request is printed and answered 200; anything that does
/// not verify is answered 400 with a warning and not printed as an event.
@Suite struct WebhookListenerTests {
    final class Lines: Sendable {
        let events = Mutex<[String]>([])
        let warnings = Mutex<[String]>([])
        var output: WebhookListener.Output {
            WebhookListener.Output(
                event: { line in self.events.withLock { $0.append(line) } },
                warning: { line in self.warnings.withLock { $0.append(line) } })
        }
    }

    static let secret = WebhookSignature.generateSecret()
    static let now: Int64 = 1_790_000_000
    static let body =
        #"{"account_id":"alice","id":"0b6f2f8e-8a8b-4f63-9a43-3c1d2b9e7a10","sequence":7,"type":"entitlement.revoked"}"#

    static func post(
        _ client: some TestClientProtocol, body: String, signature: String?
    ) async throws -> HTTPResponse.Status {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let signature { headers[HTTPField.Name(WebhookSignature.headerName)!] = signature }
        return try await client.executeRequest(
            uri: "/webhooks", method: .post, headers: headers, body: ByteBuffer(string: body)
        ).status
    }

    static func listener(_ lines: Lines, raw: Bool = false) -> some ApplicationProtocol {
        var configuration = WebhookListener.Configuration(port: 0, secrets: [secret])
        configuration.printsRawBody = raw
        return WebhookListener.buildApplication(
            configuration: configuration, output: lines.output, now: { Instant(millisecondsSince1970: now * 1_000) },
            logger: Logger(label: "test"))
    }

    @Test func printsAVerifiedEventAndAnswers200() async throws {
        let lines = Lines()
        try await Self.listener(lines).test(.live) { (client: any TestClientProtocol) async throws in
            let header = WebhookSignature.header(
                body: Array(Self.body.utf8), timestamp: Self.now - 3, secrets: [Self.secret])
            #expect(try await Self.post(client, body: Self.body, signature: header) == .ok)
        }
        #expect(
            lines.events.withLock { $0 } == [
                "entitlement.revoked  account=alice  sequence=7  id=0b6f2f8e-8a8b-4f63-9a43-3c1d2b9e7a10"
            ])
        #expect(lines.warnings.withLock { $0 }.isEmpty)
    }

    @Test func printsTheRawBodyWithJSON() async throws {
        let lines = Lines()
        try await Self.listener(lines, raw: true).test(.live) { (client: any TestClientProtocol) async throws in
            let header = WebhookSignature.header(
                body: Array(Self.body.utf8), timestamp: Self.now, secrets: [Self.secret])
            #expect(try await Self.post(client, body: Self.body, signature: header) == .ok)
        }
        #expect(lines.events.withLock { $0 } == [Self.body])
    }

    @Test func refusesTamperedUnsignedStaleAndWronglySignedRequestsWithAWarning() async throws {
        let lines = Lines()
        try await Self.listener(lines).test(.live) { (client: any TestClientProtocol) async throws in
            let header = WebhookSignature.header(
                body: Array(Self.body.utf8), timestamp: Self.now, secrets: [Self.secret])
            let tampered = Self.body.replacingOccurrences(of: "alice", with: "mallory")
            #expect(try await Self.post(client, body: tampered, signature: header) == .badRequest)
            #expect(try await Self.post(client, body: Self.body, signature: nil) == .badRequest)
            let stale = WebhookSignature.header(
                body: Array(Self.body.utf8), timestamp: Self.now - 301, secrets: [Self.secret])
            #expect(try await Self.post(client, body: Self.body, signature: stale) == .badRequest)
            let other = WebhookSignature.header(
                body: Array(Self.body.utf8), timestamp: Self.now, secrets: [WebhookSignature.generateSecret()])
            #expect(try await Self.post(client, body: Self.body, signature: other) == .badRequest)
            #expect(try await Self.post(client, body: Self.body, signature: "t=1,v1=xyz") == .badRequest)
        }
        #expect(lines.events.withLock { $0 }.isEmpty)
        let warnings = lines.warnings.withLock { $0 }
        #expect(warnings.count == 5)
        #expect(warnings[0].contains("no_matching_signature"))
        #expect(warnings[1].contains("without a SubLedger-Signature header"))
        #expect(warnings[2].contains("signature_timestamp_out_of_tolerance"))
        #expect(warnings[4].contains("malformed_signature_header"))
        #expect(!warnings.joined().contains(Self.secret))
    }
}

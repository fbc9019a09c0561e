import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import SubLedgerCore
import SubLedgerUseCases

/// `subledger webhooks listen`: a loopback HTTP server for development that checks each request's
/// `SubLedger-Signature` and prints the events that pass, like `stripe listen`.
///
/// A verified request is answered 200 and printed (type, account, sequence, id; or the raw body); one that
/// does not verify is answered 400 and a warning is printed, so a wrong secret shows at once. It listens on
/// 127.0.0.1 only: it is a developer's tool, not a receiver to expose.
public enum WebhookListener {
    /// What to listen on and which secrets to accept.
    public struct Configuration: Sendable {
        /// 0: a port the system chooses (`onListening` says which).
        public var port: Int
        /// The endpoint's secrets (the current one, and the previous one during a rotation).
        public var secrets: [String]
        /// Seconds either side of the clock a signature's timestamp may be (default 300).
        public var tolerance: Int64 = WebhookSignature.defaultTolerance
        /// Print each event's raw body instead of a summary line.
        public var printsRawBody = false

        public init(port: Int, secrets: [String]) {
            self.port = port
            self.secrets = secrets
        }
    }

    /// Where the listener writes: verified events, and warnings about refused requests.
    public struct Output: Sendable {
        public var event: @Sendable (String) -> Void
        public var warning: @Sendable (String) -> Void

        public init(event: @escaping @Sendable (String) -> Void, warning: @escaping @Sendable (String) -> Void) {
            self.event = event
            self.warning = warning
        }
    }

    /// The most body a request may have.
    static let maximumBody = 1024 * 1024

    /// The listener's application; `onListening` is told the port once it accepts connections.
    public static func buildApplication(
        configuration: Configuration, output: Output,
        now: @escaping @Sendable () -> Instant = { Instant.systemNow() },
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }, logger: Logger
    ) -> some ApplicationProtocol {
        let router = Router()
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: maximumBody)
            } catch {
                output.warning("refused a request: its body is larger than \(maximumBody) bytes or could not be read")
                return answer(.badRequest, code: "malformed_body", "the body could not be read")
            }
            let bytes = body.getBytes(at: body.readerIndex, length: body.readableBytes) ?? []
            guard let header = request.headers[HTTPField.Name(WebhookSignature.headerName)!] else {
                output.warning("refused a request without a \(WebhookSignature.headerName) header")
                return answer(.badRequest, code: "missing_signature", "no \(WebhookSignature.headerName) header")
            }
            // The signature's `t` is in whole seconds.
            let seconds = now().millisecondsSince1970 / 1_000
            if let refusal = refusal(header: header, body: bytes, configuration: configuration, now: seconds) {
                output.warning("refused a request whose signature does not verify: \(refusal)")
                return answer(.badRequest, code: refusal.code.rawValue, refusal.message)
            }
            output.event(configuration.printsRawBody ? String(decoding: bytes, as: UTF8.self) : summary(of: bytes))
            return answer(.ok, code: nil, "received")
        }
        router.post("/", use: handler)
        router.post("**", use: handler)
        return Application(
            router: router,
            configuration: .init(
                address: .hostname("127.0.0.1", port: configuration.port), serverName: "subledger-listen"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
    }

    /// Runs the listener until SIGINT or SIGTERM.
    public static func run(
        configuration: Configuration, output: Output, onListening: @escaping @Sendable (Int) async -> Void,
        logger: Logger
    ) async throws {
        let app = buildApplication(
            configuration: configuration, output: output, onListening: onListening, logger: logger)
        let group = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    /// One line about a verified event: its type, account, sequence and id (what a receiver keys on).
    public static func summary(of body: [UInt8]) -> String {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] else {
            return "(a verified request whose body is not a JSON object, \(body.count) bytes)"
        }
        func text(_ key: String) -> String {
            switch object[key] {
            case let string as String: string
            case let number as NSNumber: number.stringValue
            default: "-"
            }
        }
        return "\(text("type"))  account=\(text("account_id"))  sequence=\(text("sequence"))  id=\(text("id"))"
    }

    /// Why the request does not verify; `nil` when it does.
    static func refusal(header: String, body: [UInt8], configuration: Configuration, now: Int64)
        -> WebhookSignatureError?
    {
        do {
            try WebhookSignature.verify(
                header: header, body: body, secrets: configuration.secrets, now: now, tolerance: configuration.tolerance
            )
            return nil
        } catch {
            return error
        }
    }

    private static func answer(_ status: HTTPResponse.Status, code: String?, _ message: String) -> Response {
        let object: [String: Any] = code.map { ["error": ["code": $0, "message": message]] } ?? ["received": true]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

import HTTPTypes
import Hummingbird
import NIOCore
import SubLedgerUseCases

/// `/health/live` (the process answers) and `/health/ready` (the database answers and its schema is current).
struct HealthController: Sendable {
    let schema: SchemaStatus

    func register(on router: some RouterMethods<SubLedgerRequestContext>) {
        // The same body as `HealthStatus(status: "ok", checks: [:])`, written once: liveness probes call this
        // often, and `scripts/bench` phase (h) measures the HTTP stack's own cost per request with it.
        router.get("/health/live") { _, _ in
            Self.liveResponse()
        }
        router.get("/health/ready") { _, _ in
            await readiness()
        }
    }

    /// The body and its headers, shared by every answer (both are copied on write: Hummingbird appends `Date` and
    /// `Server` to its own copy of the headers).
    private static let liveBody = ByteBuffer(string: #"{"checks":{},"status":"ok"}"#)
    private static let liveHeaders: HTTPFields = [
        .contentType: "application/json; charset=utf-8", .contentLength: String(liveBody.readableBytes),
    ]

    private static func liveResponse() -> Response {
        Response(status: .ok, headers: liveHeaders, body: .init(byteBuffer: liveBody))
    }

    private func readiness() async -> EditedResponse<HealthStatus> {
        var checks: [String: String] = [:]
        var ready = true
        do {
            let (version, expected) = try await schema.versions()
            checks["database"] = "ok"
            if version == expected {
                checks["schema"] = "ok"
            } else {
                ready = false
                checks["schema"] =
                    "at version \(version.map(String.init) ?? "none"), "
                    + "expected \(expected): run `subledger migrate`"
            }
        } catch {
            ready = false
            checks["database"] = "unreachable"
        }
        let body = HealthStatus(status: ready ? "ok" : "unavailable", checks: checks)
        return EditedResponse(status: ready ? .ok : .serviceUnavailable, response: body)
    }
}

/// The body of both health answers.
struct HealthStatus: ResponseEncodable, Sendable {
    var status: String
    var checks: [String: String]
}

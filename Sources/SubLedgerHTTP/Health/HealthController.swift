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

    private static let liveBody: [UInt8] = Array(#"{"checks":{},"status":"ok"}"#.utf8)

    private static func liveResponse() -> Response {
        var headers = HTTPFields()
        headers.reserveCapacity(2)
        headers.append(HTTPField(name: .contentType, value: "application/json; charset=utf-8"))
        headers.append(HTTPField(name: .contentLength, value: String(liveBody.count)))
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: liveBody)))
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

import Hummingbird
import PostgresLibPQ
import SubLedgerStore

/// `/health/live` (the process answers) and `/health/ready` (the database answers and its schema is current).
struct HealthController: Sendable {
    let pool: PostgresPool
    let migrator: Migrator

    func register(on router: Router<SubLedgerRequestContext>) {
        router.get("/health/live") { _, _ in
            HealthStatus(status: "ok", checks: [:])
        }
        router.get("/health/ready") { _, _ in
            await readiness()
        }
    }

    private func readiness() async -> EditedResponse<HealthStatus> {
        var checks: [String: String] = [:]
        var ready = true
        do {
            let version = try await migrator.currentVersion(pool)
            checks["database"] = "ok"
            if version == migrator.script.latestVersion {
                checks["schema"] = "ok"
            } else {
                ready = false
                checks["schema"] = "at version \(version.map(String.init) ?? "none"), "
                    + "expected \(migrator.script.latestVersion): run `subledger migrate`"
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

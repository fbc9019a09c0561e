import ArgumentParser
import Foundation
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// `subledger audit`: what admin and support keys did (the audit log), newest first.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Show what admin and support keys did, newest first (the audit log; it is never changed).")

    @Option(help: "Only entries from this time on (RFC 3339, e.g. 2025-01-31T00:00:00Z).")
    var since: String?

    @Option(help: "Only the entries of this key (its id or its name, as `keys list` shows them).")
    var key: String?

    @Option(help: "At most this many entries (1 to \(AuditListing.maximumLimit)).")
    var limit: Int = AuditListing.defaultLimit

    @Option(help: "Only entries older than this audit id (the `next_before` of a page, to read the next).")
    var before: Int64?

    @Flag(help: "Print the entries as JSON (as GET /v1/admin/audit answers) instead of a table.")
    var json = false

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        if let since, Instant(acceptedRFC3339: since) == nil {
            throw ValidationError("--since is an RFC 3339 time, e.g. 2025-01-31T00:00:00Z, not '\(since)'")
        }
        guard (1...AuditListing.maximumLimit).contains(limit) else {
            throw ValidationError("--limit is from 1 to \(AuditListing.maximumLimit)")
        }
        if let before, before <= 0 { throw ValidationError("--before is an audit id, a positive whole number") }
    }

    func run() async throws {
        let filter = AuditLogStore.Filter(
            since: since.flatMap(Instant.init(acceptedRFC3339:)), key: key, before: before, limit: limit)
        let listing = try await withDatabase(database) { pool in
            try await AuditListing.read(filter, from: AuditLogStore(pool: pool))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            printOutput(String(decoding: try encoder.encode(listing), as: UTF8.self))
            return
        }
        printOutput(
            ["AUDIT ID", "WHEN", "KEY", "KEY ID", "SCOPE", "METHOD", "ROUTE", "TARGET", "STATUS", "FROM", "REQUEST ID"]
                .joined(separator: "\t"))
        for entry in listing.entries {
            let target = entry.target.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                .joined(separator: ",")
            printOutput(
                [
                    String(entry.auditId), entry.occurredAt, entry.keyName, entry.keyId, entry.scope, entry.method,
                    entry.route, target.isEmpty ? "-" : target, String(entry.status), entry.clientAddress ?? "-",
                    entry.requestId,
                ].joined(separator: "\t"))
        }
        if let next = listing.nextBefore { printError("more entries: --before \(next)") }
    }
}

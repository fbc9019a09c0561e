import Foundation
import Hummingbird
import NIOCore
import SubLedgerCore
import SubLedgerReports
import SubLedgerUseCases

/// `GET /v1/admin/audit` (JSON) and `GET /admin/audit` (the admin page's audit view): what admin and support
/// keys did, newest first, a bounded page at a time (`limit` up to 500, `before` the `next_before` of the page
/// before), filtered by `since` (RFC 3339) and `key` (a key's id or name). Admin keys only (`RoutePermissions`).
struct AuditController: Sendable {
    let audit: AuditLog

    func register(on group: RouterGroup<SubLedgerRequestContext>, pageOn page: RouterGroup<SubLedgerRequestContext>) {
        group.get("audit") { request, _ in
            let listing = try await audit.listing(try Self.filter(request))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(listing))))
        }
        page.get("audit") { request, _ in
            let filter = try Self.filter(request)
            let (entries, nextBefore) = try await audit.page(filter)
            let rows = entries.map { entry in
                AdminAuditPage.Row(
                    auditID: entry.auditID ?? 0, occurredAt: entry.occurredAt, keyName: entry.keyName,
                    keyID: entry.keyID, scope: entry.scope, method: entry.method, route: entry.route,
                    target: entry.target, status: entry.status, clientAddress: entry.clientAddress,
                    requestID: entry.requestID)
            }
            var older: String?
            if let before = nextBefore {
                var query = URLComponents()
                query.queryItems =
                    [URLQueryItem(name: "before", value: String(before))]
                    + (filter.key.map { [URLQueryItem(name: "key", value: $0)] } ?? [])
                older = query.percentEncodedQuery
            }
            return Response(
                status: .ok,
                headers: [
                    .contentType: "text/html; charset=utf-8",
                    .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'",
                ],
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: AdminAuditPage.render(rows: rows, key: filter.key, olderPage: older))))
        }
    }

    /// The query's filter; a value out of range is a 400 (an unknown parameter is refused before, `RouteQueryParameters`).
    static func filter(_ request: Request) throws -> AuditLog.Filter {
        var filter = AuditLog.Filter(limit: AuditListing.defaultLimit)
        for (name, value) in request.uri.queryParameters {
            let text = String(value)
            switch name {
            case "since":
                guard let since = Instant(acceptedRFC3339: text) else {
                    throw APIError.badRequest(.invalidTime, "since is an RFC 3339 time, e.g. 2025-01-31T00:00:00Z")
                }
                filter.since = since
            case "key":
                let key = text.trimmingCharacters(in: .whitespaces)
                // The page's own form sends `key=` when its field is left blank.
                if key.isEmpty { continue }
                guard (1...200).contains(key.count), !key.contains("\0") else {
                    throw APIError.badRequest(.invalidParameter, "key is a key's id or name (1 to 200 characters)")
                }
                filter.key = key
            case "limit":
                guard let limit = Int(text), (1...AuditListing.maximumLimit).contains(limit) else {
                    throw APIError.badRequest(
                        .invalidParameter, "limit is a whole number from 1 to \(AuditListing.maximumLimit)")
                }
                filter.limit = limit
            case "before":
                guard let before = Int64(text), before > 0 else {
                    throw APIError.badRequest(.invalidParameter, "before is an audit_id (a positive whole number)")
                }
                filter.before = before
            default:
                continue  // refused by `QueryParameterMiddleware`
            }
        }
        return filter
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerUseCases

/// The operators' side: `/v1/admin/reports/{name}[/{id}]` (JSON, CSV or a text table), the `/admin` page,
/// whose search box takes an order id, a transaction id, an app account token or an account id (`SupportLookup`),
/// and the revenue page `/admin/revenue` (MRR and revenue charts, kept off `/admin` so that it stays fast).
/// Which key may call which is `RoutePermissions`' to say (reports and support keys see parts of `/admin`); the
/// pages also accept a key as the password of HTTP Basic authentication, so a browser can open them.
struct AdminController: Sendable {
    /// The reports and the page's panels are served by a read replica when one is current enough; the search
    /// box (`SupportLookup`) always by the primary.
    let reads: LedgerReads
    let now: @Sendable () -> Instant
    /// Answers the page's search box.
    let support: SupportLookup

    func register(
        reportsOn group: RouterGroup<SubLedgerRequestContext>, pageOn page: RouterGroup<SubLedgerRequestContext>
    ) {
        group.get("reports/:name") { request, context in try await report(request, context) }
        group.get("reports/:name/:id") { request, context in try await report(request, context) }
        page.get("") { request, context in try await adminPage(request, context) }
        page.get("revenue") { request, context in try await adminRevenuePage(request, context) }
    }

    func report(_ request: Request, _ context: SubLedgerRequestContext) async throws -> Response {
        var options: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { options[String(key)] = String(value) }
        let format =
            try options.removeValue(forKey: "format").map { raw in
                guard let format = ReportFormat(rawValue: raw) else {
                    throw APIError.badRequest(.invalidFormat, "format is json, csv or table")
                }
                return format
            } ?? .json
        // Path parameters that cannot be percent-decoded are bad arguments.
        let refusal = { (why: String) -> any Error in ReportError(code: .invalidArgument, message: why) }
        let name = try context.pathParameter("name", refusal: refusal)
        let id = context.parameters.get("id") == nil ? nil : try context.pathParameter("id", refusal: refusal)
        // A ReportError (bad arguments, nothing to report on) is answered by ErrorMiddleware.
        let reportRequest = try ReportRequest(name: name, id: id, options: options, now: now())
        let instant = now()
        let (report, freshness) = try await reads.read(token: context.consistencyToken) { store in
            try await store.pool.withConnection { connection in
                (
                    try Reports.run(reportRequest, on: connection),
                    try ReportFreshness.read(scope: reportRequest.scope, now: instant, on: connection)
                )
            }
        }
        let text = try await Self.offRequestThreads { format.render(report, freshness: freshness) }
        return Response(
            status: .ok, headers: [.contentType: format.contentType], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// Runs CPU-heavy `work` (rendering up to 100,000 rows) on NIO's thread pool for blocking work, a fixed set of
    /// threads apart from the cooperative pool and the event loops that serve requests: a large report then
    /// costs CPU time but never stops other routes, `/health/live` included, from answering.
    static func offRequestThreads<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(work)
    }

    /// `/admin`: each part only for a key that may see it (`Permission`): the charts for reports, the
    /// search box for customer lookups, the webhook and store-call panels for operations. A search by a key
    /// that may not look customers up is refused, not ignored.
    func adminPage(_ request: Request, _ context: SubLedgerRequestContext) async throws -> Response {
        let key = try context.requireKey()
        let query = try request.uri.queryParameters.get("q").map { $0.trimmingCharacters(in: .whitespaces) }
            .flatMap { $0.isEmpty ? nil : $0 }.map { try RequestText.freeText($0, code: .invalidQuery) }
        if query != nil, !key.may(.customerLookup) {
            try AuthorizationMiddleware.authorize(key, [.customerLookup])
        }
        let instant = now()
        let found: AdminSearchResult?
        if let query { found = try await support.search(query) } else { found = nil }
        let html = try await reads.read(token: context.consistencyToken) { store in
            let pool = store.pool
            // The page's reports are independent reads: each runs on its own pooled connection (its own thread and
            // PostgreSQL backend) at the same time, so the page takes as long as the slowest, not their sum.
            async let charts: AdminPage.Charts? =
                key.may(.reports) ? Self.charts(on: pool, now: instant) : nil
            async let webhooks: WebhooksPanel? =
                key.may(.webhooks) ? pool.withConnection { try WebhooksPanel.load(on: $0) } : nil
            async let obligations: StoreObligationsPanel? =
                key.may(.operations) ? pool.withConnection { try StoreObligationsPanel.load(on: $0) } : nil
            let (chartsPart, webhooksPanel, obligationsPanel) = try await (charts, webhooks, obligations)
            return AdminPage.render(
                charts: chartsPart,
                search: key.may(.customerLookup) ? AdminPage.Search(query: query, result: found) : nil,
                navigation: AdminPage.Link.allCases.filter { link in
                    switch link {
                    case .revenue: key.may(.reports)
                    case .audit: key.may(.audit)
                    }
                },
                webhooks: webhooksPanel, storeObligations: obligationsPanel, now: instant)
        }
        return htmlResponse(html)
    }

    /// The page's charts and headline numbers, each report on its own pooled connection at the same time.
    private static func charts(on pool: PostgresPool, now instant: Instant) async throws -> AdminPage.Charts {
        async let summary = pool.withConnection { try Reports.summary(on: $0, scope: .everything, now: instant) }
        async let active = pool.withConnection {
            try Reports.activeOverTime(on: $0, scope: .everything, days: 90, now: instant)
        }
        async let churn = pool.withConnection {
            try Reports.churn(
                on: $0, scope: .everything, from: instant.adding(milliseconds: -365 * 86_400_000), to: instant)
        }
        async let freshness = pool.withConnection {
            try ReportFreshness.read(scope: .everything, now: instant, on: $0)
        }
        let (summaryReport, activeReport, churnReport, reportFreshness) = try await (summary, active, churn, freshness)
        return AdminPage.Charts(
            summary: summaryReport, activeOverTime: activeReport.days, statesByProduct: summaryReport.products,
            churnByMonth: churnReport, freshness: reportFreshness)
    }

    /// `/admin/revenue`: the money charts, apart from `/admin` because their reports take seconds on a large
    /// ledger. `from`, `to` and `currency` are read by `RevenuePageQuery` (a bad one is a 400).
    func adminRevenuePage(_ request: Request, _ context: SubLedgerRequestContext) async throws -> Response {
        var options: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { options[String(key)] = String(value) }
        let instant = now()
        let query = try RevenuePageQuery(options: options, now: instant)
        let html = try await reads.read(token: context.consistencyToken) { store in
            let pool = store.pool
            // Independent reads, each on its own pooled connection at the same time (see `adminPage`).
            async let revenue = pool.withConnection { try RevenuePanel.load(on: $0, query: query, now: instant) }
            async let cohorts = pool.withConnection { try CohortsPanel.load(on: $0, now: instant) }
            let (revenuePanel, cohortsPanel) = try await (revenue, cohorts)
            return AdminRevenuePage.render(query: query, revenue: revenuePanel, cohorts: cohortsPanel, now: instant)
        }
        return htmlResponse(html)
    }

    private func htmlResponse(_ html: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8",
                .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'",
            ],
            body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}

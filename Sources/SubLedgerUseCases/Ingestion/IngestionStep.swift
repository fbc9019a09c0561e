import Tracing

/// A step of taking in a purchase or a notification, traced as a span named `ingestion.<step>` with the app's bundle
/// id when known (docs/guides/operate.md, "Traces"): `store` keeps the raw input, `verify` checks it with the store (Apple's or
/// Google's answer, a signature), `apply` runs the ledger's transaction, whose `postgres.commit` ends it.
package enum IngestionStep: String, Sendable {
    case store
    case verify
    case apply

    /// Runs `body` inside this step's span (a no-op span unless `serve` or `poll` installed a tracer).
    package func traced<T>(
        app bundleID: String?, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        try await withSpan("ingestion." + rawValue) { span in
            if let bundleID { span.attributes["subledger.app"] = bundleID }
            return try await body()
        }
    }
}

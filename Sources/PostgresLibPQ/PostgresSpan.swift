import Tracing

/// The spans of this library (`postgres.transaction`, `postgres.pipeline`, `postgres.commit`; docs/guides/operate.md,
/// "Traces"), made only inside a trace the caller started: a background loop's transactions would otherwise each
/// start a trace of their own, a steady stream of one-span traces that say nothing.
enum PostgresSpan {
    /// Runs `body` in a client span named `name` when there is a current trace; else runs it bare.
    static func traced<T>(_ name: String, _ describe: (any Span) -> Void, _ body: () throws -> T) rethrows -> T {
        guard InstrumentationContext.current != nil else { return try body() }
        return try withSpan(name, ofKind: .client) { span in
            span.attributes["db.system.name"] = "postgresql"
            describe(span)
            return try body()
        }
    }

    /// The same for asynchronous work.
    static func traced<T>(
        _ name: String, isolation: isolated (any Actor)? = #isolation, _ describe: (any Span) -> Void,
        _ body: () async throws -> T
    ) async rethrows -> T {
        guard InstrumentationContext.current != nil else { return try await body() }
        return try await withSpan(name, ofKind: .client) { span in
            span.attributes["db.system.name"] = "postgresql"
            describe(span)
            return try await body()
        }
    }
}

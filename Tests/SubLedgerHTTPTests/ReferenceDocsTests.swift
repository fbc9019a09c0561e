import Foundation
import Testing

/// docs/reference/metrics.md and docs/reference/configuration.md each list one kind of name the code defines: the
/// metrics it exports and the environment variables it reads. A name in one and not the other is a doc that drifted.
@Suite struct ReferenceDocsTests {
    static let repository = ErrorCodeCatalogTests.repository

    /// The names in the first column of `document`'s tables that have the shape `pattern` (a backquoted name).
    static func firstColumnNames(of document: String, matching pattern: String) throws -> Set<String> {
        let text = try String(contentsOf: repository.appendingPathComponent(document), encoding: .utf8)
        let row = try Regex("(?m)^\\| `(\(pattern))` \\|")
        return Set(text.matches(of: row).compactMap { $0.output[1].substring.map(String.init) })
    }

    /// The captures of `pattern` over every Swift file under Sources.
    static func sourceCaptures(_ pattern: String) throws -> Set<String> {
        let regex = try Regex(pattern)
        let (texts, _) = try ArchitectureDocNamesTests.swiftFiles(in: ["Sources"])
        var found: Set<String> = []
        for text in texts {
            for match in text.matches(of: regex) {
                if let name = match.output[1].substring { found.insert(String(name)) }
            }
        }
        return found
    }

    @Test func metricsReferenceListsExactlyTheMetricsTheCodeExports() throws {
        // A swift-metrics label is exported with its dots as underscores; the pool's gauges are named
        // `subledger_db_pool_<descriptor>` by PoolMetrics.
        let labels = try Self.sourceCaptures(
            #"\b(?:Counter|FloatingPointCounter|Gauge|Meter|Recorder|Timer)\(\s*label:\s*"([a-z_.]+)""#)
        let pool = try Self.sourceCaptures(#"descriptor\("([a-z_]+)""#).map { "subledger_db_pool_\($0)" }
        let exported = Set(labels.map { $0.replacingOccurrences(of: ".", with: "_") }).union(pool)
        let documented = try Self.firstColumnNames(of: "docs/reference/metrics.md", matching: "[a-z_]+")
        #expect(exported.count > 30, "the sources' metrics were not read")
        for name in exported.subtracting(documented).sorted() {
            Issue.record("the code exports \(name), and docs/reference/metrics.md does not list it")
        }
        for name in documented.subtracting(exported).sorted() {
            Issue.record("docs/reference/metrics.md lists \(name), and the code exports no such metric")
        }
    }

    @Test func configurationReferenceListsExactlyTheEnvironmentVariablesTheCodeReads() throws {
        let read = try Self.sourceCaptures(#""((?:SUBLEDGER_[A-Z0-9_]+)|DATABASE_URL)""#)
        let documented = try Self.firstColumnNames(
            of: "docs/reference/configuration.md", matching: "SUBLEDGER_[A-Z0-9_]+|DATABASE_URL")
        #expect(read.count > 30, "the sources' environment variables were not read")
        for name in read.subtracting(documented).sorted() {
            Issue.record("the code reads \(name), and docs/reference/configuration.md does not list it")
        }
        for name in documented.subtracting(read).sorted() {
            Issue.record("docs/reference/configuration.md lists \(name), and the code reads no such variable")
        }
    }
}

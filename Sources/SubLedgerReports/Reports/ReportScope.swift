/// Which part of the ledger a report reads: one app (by bundle id) or all, one environment or all.
public struct ReportScope: Sendable, Hashable, Codable {
    /// The app's bundle id; `nil` reports on every app.
    public var bundleID: String?
    /// `Production`, `Sandbox`, ...; `nil` reports on every environment.
    public var environment: String?

    public init(bundleID: String? = nil, environment: String? = nil) {
        self.bundleID = bundleID
        self.environment = environment
    }

    /// Every app and environment.
    public static let everything = ReportScope()
}

/// A failure to create, start or stop the embedded cluster, with what to do about it.
public struct EmbeddedPostgresError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}

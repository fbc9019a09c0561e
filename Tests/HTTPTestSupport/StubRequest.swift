import Foundation

/// What the stub server received.
public struct StubRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [String: [String]]
    /// Header values by lower-cased name.
    public var headers: [String: String]
    public var body: Data

    /// The value of header `name`, in any case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

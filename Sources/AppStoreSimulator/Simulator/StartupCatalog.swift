import Foundation

/// Apps and Apple IDs to create at start, read from a JSON file (`--config`), in the control API's spelling.
public struct StartupCatalog: Sendable, Codable, Hashable {
    /// Apps, as `POST /control/apps` bodies.
    public var apps: [AppDefinition]?
    /// Apple IDs, as `POST /control/apple-ids` bodies.
    public var appleIDs: [AppleIDDefinition]?

    /// Creates a catalog.
    public init(apps: [AppDefinition]? = nil, appleIDs: [AppleIDDefinition]? = nil) {
        self.apps = apps
        self.appleIDs = appleIDs
    }

    /// Decodes a catalog file (snake_case keys, as the control API).
    public static func decode(_ data: Data) throws -> StartupCatalog {
        try ControlJSON.decoder.decode(StartupCatalog.self, from: data)
    }
}

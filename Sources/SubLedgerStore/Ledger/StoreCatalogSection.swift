import SubLedgerCore

/// A store's section of an app in the catalog file (`stripe: {secret_key | secret_key_file, webhook_secret}`): the
/// secrets the app gives the store's module, stored among its store secrets by their names here (`StoreSecrets`).
/// Declared by the store's module (`StoreRegistration.catalogSection`) and read by the catalog file, which knows no
/// store's keys of its own. Once an app gives the section, each of its secrets is required.
public struct StoreCatalogSection: Sendable {
    /// One secret of the section.
    public struct Secret: Sendable {
        /// Its name in the section and among the app's store secrets (`secret_key`).
        public var name: String
        /// What it is, for the refusal that names it: `a Stripe secret key (sk_…) or restricted key (rk_…)`.
        public var description: String
        /// The prefixes it starts with, one of them.
        public var prefixes: [String]
        /// Whether it may be given in a file instead, `<name>_file` (relative to the catalog file's directory, at most
        /// 4 KiB, surrounding white space dropped).
        public var mayBeInFile: Bool

        public init(name: String, description: String, prefixes: [String], mayBeInFile: Bool = false) {
            self.name = name
            self.description = description
            self.prefixes = prefixes
            self.mayBeInFile = mayBeInFile
        }

        /// The key that names its file, when it may be given in one.
        public var fileKey: String? { mayBeInFile ? name + "_file" : nil }

        /// Whether `value` could be this secret: one of its prefixes, then printable ASCII, 8 to 1024 bytes in all.
        public func accepts(_ value: String) -> Bool {
            prefixes.contains { value.hasPrefix($0) } && (8...1024).contains(value.utf8.count)
                && value.utf8.allSatisfy { (0x21...0x7E).contains($0) }
        }
    }

    /// The store whose section it is; the section's key in an app is the store's name (`stripe`).
    public var store: Store
    /// Its secrets.
    public var secrets: [Secret]

    public init(store: Store, secrets: [Secret]) {
        self.store = store
        self.secrets = secrets
    }

    /// The section's key in an app of the catalog.
    public var key: String { store.rawValue }

    /// Every key the section may hold.
    public var keys: Set<String> { Set(secrets.map(\.name) + secrets.compactMap(\.fileKey)) }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reading the secret key file, and creating the embedded quick start's one.
public enum SecretKeyFile {
    /// The keys in the file at `path` (see `SecretKeyring.parse`).
    public static func read(_ path: String) throws(SecretError) -> SecretKeyring {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SecretError(.unreadableKeyFile, "cannot read the secret key file \(path)")
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw SecretError(.malformedKey, "the secret key file \(path) is not text")
        }
        return try SecretKeyring.parse(text, source: path)
    }

    /// The keys in the file at `path`, creating it (mode 0600, one new key) when it does not exist.
    ///
    /// Creation is atomic: the key is written to a private temporary file that is then hard-linked into
    /// place, so two processes starting at once agree on one key and nobody reads a half-written file.
    public static func readOrCreate(_ path: String) throws(SecretError) -> (keyring: SecretKeyring, created: Bool) {
        if FileManager.default.fileExists(atPath: path) { return (try read(path), false) }
        let directory = (path as NSString).deletingLastPathComponent
        do {
            // Default permissions: the folder may also hold the embedded cluster, whose programs run as
            // another user when SubLedger runs as root. The file itself is private.
            try FileManager.default.createDirectory(
                atPath: directory.isEmpty ? "." : directory, withIntermediateDirectories: true)
        } catch {
            throw SecretError(.unreadableKeyFile, "cannot create the folder of the secret key file \(path)")
        }
        let key = SecretKey.generate()
        let text = """
            # SubLedger's secret key (docs/guides/operate.md, "Secrets at rest"), created by the embedded quick start.
            # It seals the apps' secrets in the database; without it they cannot be read. Keep it out of backups
            # of the database and back it up separately.
            \(key.base64)

            """
        let temporary = path + ".tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw SecretError(.unreadableKeyFile, "cannot create the secret key file \(path)")
        }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        defer { unlink(temporary) }
        guard written == bytes.count, synced else {
            throw SecretError(.unreadableKeyFile, "cannot write the secret key file \(path)")
        }
        if link(temporary, path) == 0 {
            return (try SecretKeyring(keys: [key]), true)
        }
        guard errno == EEXIST else {
            throw SecretError(.unreadableKeyFile, "cannot create the secret key file \(path)")
        }
        // Another process created it first: use theirs.
        return (try read(path), false)
    }
}

/// The `schema.sql` compiled into this build (embedded at build time, so the binary needs no files beside it).
public enum BundledSchema {
    /// The file's text.
    public static func text() throws -> String {
        String(decoding: PackageResources.schema_sql, as: UTF8.self)
    }
}

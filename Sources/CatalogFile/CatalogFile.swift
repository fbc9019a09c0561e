import Foundation
import SubLedgerCore
import SubLedgerStore
import Yams

/// The catalog file `subledger catalog apply` reads: the core's `Catalog` (apps, products, entitlements) and, beside
/// it, each app's secrets, which never travel inside the core's values. Parsing lives here, at the edge that reads
/// files; the store only stores what this returns (`CatalogStore.applyCatalog`).
public enum CatalogFile {
    /// Reads a catalog file (JSON, or YAML when the text is not JSON) and validates it, refusing as well an app
    /// that accepts Production without `apple_app_id` (`missing_apple_app_id`, see `Catalog.servingErrors`) and
    /// any key the file format does not know (`CatalogKeys`), so a misspelt setting never silently means its
    /// default.
    ///
    /// Besides the core's fields, each app may carry `shared_secret` (verifyReceipt, V1 notifications) and
    /// `server_api: {issuer_id, key_id, private_key_file | private_key}` (App Store Server API); these are
    /// returned separately so they never travel inside the core's values; `google_play` may carry, beside its
    /// `package_name`, `service_account_key_file | service_account_key` (the Developer API's JSON key). A relative
    /// `private_key_file` or `service_account_key_file` is read relative to `directory`. Each of `sections` is a
    /// store's section of an app (`stripe: {secret_key | secret_key_file, webhook_secret}`), as the store's module
    /// declares it (`StoreCatalogSection`); a section not given there is an unknown key.
    public static func read(
        _ text: String, directory: String = ".", sections: [StoreCatalogSection] = []
    ) throws(CatalogFileError) -> (catalog: Catalog, secrets: [String: AppSecrets]) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        struct Secrets: Decodable {
            struct ServerAPI: Decodable {
                var issuer_id: String
                var key_id: String
                var private_key: String?
                var private_key_file: String?
            }
            struct GooglePlay: Decodable {
                var service_account_key: String?
                var service_account_key_file: String?
            }
            struct AppSecret: Decodable {
                var bundle_id: String
                var shared_secret: String?
                var server_api: ServerAPI?
                var google_play: GooglePlay?
            }
            var apps: [AppSecret]
        }
        do {
            let catalog: Catalog
            let secrets: Secrets
            let shape: CatalogKeys.Node
            let keys = CatalogKeys.file(sections: sections)
            if trimmed.hasPrefix("{") {
                shape = try JSONDecoder().decode(CatalogKeys.Node.self, from: Data(trimmed.utf8))
                try CatalogKeys.check(shape, against: keys)
                catalog = try JSONDecoder().decode(Catalog.self, from: Data(trimmed.utf8))
                secrets = try JSONDecoder().decode(Secrets.self, from: Data(trimmed.utf8))
            } else {
                shape = try YAMLDecoder().decode(CatalogKeys.Node.self, from: trimmed)
                try CatalogKeys.check(shape, against: keys)
                catalog = try YAMLDecoder().decode(Catalog.self, from: trimmed)
                secrets = try YAMLDecoder().decode(Secrets.self, from: trimmed)
            }
            let sectionsGiven = try shape.storeSections(keys: Set(sections.map(\.key)))
            try catalog.validateForServing()
            var result: [String: AppSecrets] = [:]
            for app in secrets.apps {
                var serverAPI: ServerAPICredentials?
                if let api = app.server_api {
                    var pem = api.private_key
                    if pem == nil, let file = api.private_key_file {
                        let path = file.hasPrefix("/") ? file : directory + "/" + file
                        guard let data = FileManager.default.contents(atPath: path) else {
                            throw CatalogFileError("cannot read the Server API key \(path) of \(app.bundle_id)")
                        }
                        pem = String(decoding: data, as: UTF8.self)
                    }
                    guard let pem, pem.contains("PRIVATE KEY") else {
                        throw CatalogFileError(
                            "server_api of \(app.bundle_id) needs private_key_file or private_key (a .p8 PEM key)")
                    }
                    serverAPI = ServerAPICredentials(issuerID: api.issuer_id, keyID: api.key_id, privateKeyPEM: pem)
                }
                var googleKey = app.google_play?.service_account_key
                if googleKey == nil, let file = app.google_play?.service_account_key_file {
                    let path = file.hasPrefix("/") ? file : directory + "/" + file
                    guard let data = FileManager.default.contents(atPath: path), data.count <= 16 * 1024 else {
                        throw CatalogFileError(
                            "cannot read the Google Play service account key \(path) of \(app.bundle_id) (at most 16 KiB)"
                        )
                    }
                    googleKey = String(decoding: data, as: UTF8.self)
                }
                if let googleKey {
                    // The whole key is checked where it is used (GooglePlay.ServiceAccountKey); here only its shape.
                    let object = try? JSONSerialization.jsonObject(with: Data(googleKey.utf8)) as? [String: Any]
                    guard let object, object["type"] as? String == "service_account", object["private_key"] is String,
                        object["client_email"] is String
                    else {
                        throw CatalogFileError(
                            "google_play of \(app.bundle_id): the service account key is not a JSON key file of a "
                                + "service account (type, private_key, client_email)")
                    }
                }
                // Each store's secrets by the names its module reads them by (GooglePlaySecrets, and each store's
                // section as its module declares it).
                var stores = StoreSecrets()
                stores[.googlePlay, "service_account_key"] = googleKey
                for section in sections {
                    guard let given = sectionsGiven[app.bundle_id]?[section.key] else { continue }
                    for secret in section.secrets {
                        stores[section.store, secret.name] = try Self.secret(
                            secret, of: section, given: given, bundleID: app.bundle_id, directory: directory)
                    }
                }
                result[app.bundle_id] = AppSecrets(
                    sharedSecret: app.shared_secret, serverAPI: serverAPI, stores: stores)
            }
            return (catalog, result)
        } catch let error as CatalogFileError {
            throw error
        } catch let error as CatalogError {
            throw CatalogFileError("\(error)")
        } catch let error as DecodingError {
            throw CatalogFileError(Self.describe(error))
        } catch {
            throw CatalogFileError("\(error)")
        }
    }

    /// The value of `secret` in an app's `section`, as `given` there (its values by key) or in the file its file key
    /// names: required, and checked for shape (`StoreCatalogSection.Secret.accepts`).
    private static func secret(
        _ secret: StoreCatalogSection.Secret, of section: StoreCatalogSection, given: [String: String],
        bundleID: String, directory: String
    ) throws(CatalogFileError) -> String {
        var value = given[secret.name]
        if value == nil, let fileKey = secret.fileKey, let file = given[fileKey] {
            let path = file.hasPrefix("/") ? file : directory + "/" + file
            guard let data = FileManager.default.contents(atPath: path), data.count <= 4096 else {
                throw CatalogFileError("cannot read \(section.key).\(fileKey) \(path) of \(bundleID) (at most 4 KiB)")
            }
            value = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        guard let value, secret.accepts(value) else {
            let names = [secret.name] + (secret.fileKey.map { [$0] } ?? [])
            throw CatalogFileError(
                "\(section.key) of \(bundleID) needs \(names.joined(separator: " or ")): \(secret.description)")
        }
        return value
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, let context):
            return "missing '\(key.stringValue)' at \(path(context.codingPath))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            if let underlying = context.underlyingError as? CatalogError { return "\(underlying)" }
            return "\(context.debugDescription) at \(path(context.codingPath))"
        @unknown default:
            return "\(error)"
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty
            ? "the top level"
            : codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

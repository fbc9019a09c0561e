import SubLedgerCore
import SubLedgerStore

/// An app's Google Play secret: the service account's JSON key the Developer API is read with, stored as the app's
/// store secret `google_play`/`service_account_key` (`StoreSecrets`), from the catalog's `google_play:` settings.
public enum GooglePlaySecrets {
    /// The key's name among the app's store secrets.
    public static let serviceAccountKeyName = "service_account_key"
}

extension StoredApp {
    /// The Google Play service account's JSON key (the Developer API's credentials), if configured.
    public var googleServiceAccountKey: String? {
        storeSecrets[.googlePlay, GooglePlaySecrets.serviceAccountKeyName]
    }
}

extension StoreSecrets {
    /// Store secrets holding Google Play's service account key, `serviceAccountKey`.
    public static func googlePlay(serviceAccountKey: String) -> StoreSecrets {
        var secrets = StoreSecrets()
        secrets[.googlePlay, GooglePlaySecrets.serviceAccountKeyName] = serviceAccountKey
        return secrets
    }
}

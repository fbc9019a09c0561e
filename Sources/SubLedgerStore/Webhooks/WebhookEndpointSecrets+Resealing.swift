import PostgresLibPQ

/// The webhook endpoints' signing secrets in `secrets status` and `secrets rotate-key`: sealed with the same
/// keys as the apps' secrets, so they are counted and re-sealed with them.
enum WebhookEndpointSecrets {
    /// Key ids of sealed endpoint secrets (current and previous), one row each, as a subquery of
    /// `SecretStore.status()`'s union.
    static let sealedKeyIDs: PostgresQuery = """
        SELECT secret_key_id FROM webhook_endpoints WHERE secret_sealed IS NOT NULL
        UNION ALL
        SELECT previous_secret_key_id FROM webhook_endpoints WHERE previous_secret_sealed IS NOT NULL
        """

    /// How many endpoint secrets are stored in plaintext.
    static let plaintextCount: PostgresQuery = """
        SELECT count(*) FILTER (WHERE secret IS NOT NULL) + count(*) FILTER (WHERE previous_secret IS NOT NULL)
        FROM webhook_endpoints
        """

    /// Seals every endpoint secret with `keys.current` inside the caller's transaction: re-seals those
    /// sealed with another key and seals plaintext ones. Returns (re-sealed, sealed from plaintext).
    static func reseal(on connection: PostgresConnection, with keys: SecretKeyring) throws -> (
        resealed: Int, sealed: Int
    ) {
        guard let current = keys.current else { return (0, 0) }
        let rows = try connection.query(
            """
            SELECT e.endpoint_id::text, a.bundle_id, e.secret, e.secret_sealed, e.secret_key_id,
                e.previous_secret, e.previous_secret_sealed, e.previous_secret_key_id
            FROM webhook_endpoints e JOIN apps a USING (app_id) ORDER BY e.endpoint_id FOR UPDATE OF e
            """)
        var result = (resealed: 0, sealed: 0)
        for row in rows {
            let endpointID = try row.decode(String.self, at: 0)
            let purpose = SecretPurpose.webhookSecret(
                endpointID: endpointID, bundleID: try row.decode(String.self, at: 1))
            for (index, column): (Int, PostgresQuery) in [(2, "secret"), (5, "previous_secret")] {
                guard let stored = try StoredSecret(row, at: index), stored.sealed?.keyID != current.id else {
                    continue
                }
                let sealed = try keys.seal(try stored.open(for: purpose, with: keys), for: purpose)
                try connection.query(
                    """
                    UPDATE webhook_endpoints SET \(column) = NULL, \(column)_sealed = \(sealed.combined),
                        \(column)_key_id = \(sealed.keyID)
                    WHERE endpoint_id = \(endpointID)::uuid
                    """ as PostgresQuery)
                if stored.plaintext != nil { result.sealed += 1 } else { result.resealed += 1 }
            }
        }
        return result
    }
}

import PostgresLibPQ

/// Two apps whose secrets the secrets-at-rest tests seal, open and rotate, and a reader of the raw columns.
public enum SecretsFixture {
    public static let bundleID = "com.example.secrets"
    public static let otherBundleID = "com.example.other"
    public static let pem =
        "-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg\n-----END PRIVATE KEY-----\n"

    public static let catalogYAML = """
        apps:
          - bundle_id: com.example.secrets
            apple_app_id: 1999999999
            environments: [production, sandbox]
            shared_secret: the-shared-secret-0123456789abcdef
            server_api:
              issuer_id: 57246542-96fe-1a63-e053-0824d011072a
              key_id: 2X9R4HXF34
              private_key: "-----BEGIN PRIVATE KEY-----\\nMIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHkwdwIBAQQg\\n-----END PRIVATE KEY-----\\n"
            products:
              - { product_id: coins.100, type: consumable, credits: 100 }
          - bundle_id: com.example.other
            apple_app_id: 1999999999
            environments: [production]
            shared_secret: another-secret
            products:
              - { product_id: coins.100, type: consumable, credits: 100 }
        """

    /// The raw secret columns of `bundleID`: plaintext, sealed bytes and key id of each field.
    public static func rawColumns(_ pool: PostgresPool, _ bundleID: String = bundleID) async throws
        -> (
            sharedSecret: String?, sharedSealed: [UInt8]?, sharedKeyID: String?, pem: String?, pemSealed: [UInt8]?,
            pemKeyID: String?
        )
    {
        let row = try await pool.query(
            """
            SELECT shared_secret, shared_secret_sealed, shared_secret_key_id,
                server_api_private_key, server_api_private_key_sealed, server_api_private_key_key_id
            FROM apps WHERE bundle_id = \(bundleID)
            """
        ).single()
        return (
            try row.decode(String?.self, at: 0), try row.decode([UInt8]?.self, at: 1),
            try row.decode(String?.self, at: 2),
            try row.decode(String?.self, at: 3), try row.decode([UInt8]?.self, at: 4),
            try row.decode(String?.self, at: 5)
        )
    }
}

extension SecretPurpose.Field {
    /// `webhook_endpoints.secret` and `.previous_secret`: an endpoint's signing secret, sealed for the app
    /// whose endpoint it is (the bundle id), so that rotating moves the sealed current secret into the
    /// previous one without opening it.
    public static let webhookSecret = SecretPurpose.Field(rawValue: "webhook_secret")
}

/// Apple's subscription `status` in notifications and the Get All Subscription Statuses answer.
public enum SubscriptionStatus: Int, Hashable, Sendable, Codable, CaseIterable {
    case active = 1
    case expired = 2
    case billingRetry = 3
    case billingGracePeriod = 4
    case revoked = 5
}

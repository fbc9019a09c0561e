import Foundation
import GooglePlay
import SeededRandom
import SubLedgerCore

/// Everything the simulated Google Play holds, changed only under the engine's lock.
struct SimulatorState: Sendable {
    var packages: [String: PackageDefinition] = [:]
    var subscriptions: [String: SubscriptionRecord] = [:]
    var oneTimePurchases: [String: OneTimePurchaseRecord] = [:]
    /// In the order they were voided.
    var voided: [VoidedRecord] = []
    var notifications = NotificationLog()
    /// Events of the current change, turned into notifications when it completes.
    var events: [DeveloperNotification] = []
    /// The instant `processDue` last brought every purchase to, and whether a change was made since: with neither
    /// the clock moved nor a purchase changed, nothing can be due that was not processed (the check walks every
    /// purchase, which a read of one purchase should not pay for).
    var processedThrough: Instant?
    var changedSinceProcessing = true
    var random: SplitMix64

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    // MARK: Identifiers

    /// A purchase token shaped like Google's: letters, `.AO-J1O`, then base64url.
    mutating func makePurchaseToken() -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        var head = ""
        for _ in 0..<24 { head.append(letters[Int(random.next() % 26)]) }
        var tail: [UInt8] = []
        for _ in 0..<8 { withUnsafeBytes(of: random.next()) { tail.append(contentsOf: $0) } }
        return head + ".AO-J1O" + Base64URL.encode(tail)
    }

    /// An order id: `GPA.3xxx-xxxx-xxxx-xxxxx`.
    mutating func makeOrderID() -> String {
        func digits(_ count: Int) -> String {
            var text = ""
            for _ in 0..<count { text += String(random.next() % 10) }
            return text
        }
        return "GPA.33\(digits(2))-\(digits(4))-\(digits(4))-\(digits(5))"
    }

    mutating func makeMessageID() -> String { String(1_000_000_000_000 + random.next() % 9_000_000_000_000) }

    // MARK: Catalog

    func package(_ name: String) throws(SimulatorError) -> PackageDefinition {
        guard let package = packages[name] else { throw SimulatorError(.notFound, "no package \(name)") }
        return package
    }

    // MARK: Events

    mutating func emit(
        _ packageName: String, at: Instant, subscription type: SubscriptionNotificationType, _ token: String
    ) {
        events.append(
            DeveloperNotification(
                packageName: packageName, eventTimeMillis: at.millisecondsSince1970,
                subscriptionNotification: SubscriptionNotification(notificationType: type, purchaseToken: token)))
    }

    mutating func emitVoided(
        _ packageName: String, at: Instant, token: String, orderId: String, isSubscription: Bool, partial: Bool = false
    ) {
        events.append(
            DeveloperNotification(
                packageName: packageName, eventTimeMillis: at.millisecondsSince1970,
                voidedPurchaseNotification: VoidedPurchaseNotification(
                    purchaseToken: token, orderId: orderId,
                    productType: isSubscription
                        ? VoidedPurchaseNotification.productTypeSubscription
                        : VoidedPurchaseNotification.productTypeOneTime,
                    refundType: partial
                        ? VoidedPurchaseNotification.refundTypeQuantityBasedPartial
                        : VoidedPurchaseNotification.refundTypeFull)))
    }
}

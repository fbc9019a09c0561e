import Foundation

/// The Android Publisher v3 purchase methods SubLedger uses, as paths relative to
/// `https://androidpublisher.googleapis.com/` exactly as the discovery document names them; built for a client
/// and parsed for a server (the simulator).
public enum AndroidPublisherRoute: Hashable, Sendable {
    /// `GET …/purchases/subscriptionsv2/tokens/{token}` → `SubscriptionPurchaseV2`.
    case getSubscriptionV2(packageName: String, token: String)
    /// `POST …/purchases/subscriptionsv2/tokens/{token}:revoke` with `RevokeSubscriptionPurchaseRequest`.
    case revokeSubscriptionV2(packageName: String, token: String)
    /// `POST …/purchases/subscriptionsv2/tokens/{token}:cancel` with `CancelSubscriptionPurchaseRequest`.
    case cancelSubscriptionV2(packageName: String, token: String)
    /// `POST …/purchases/subscriptionsv2/tokens/{token}:defer` with `DeferSubscriptionPurchaseRequest`.
    case deferSubscriptionV2(packageName: String, token: String)
    /// `POST …/purchases/subscriptions/{subscriptionId}/tokens/{token}:acknowledge` with `AcknowledgeRequest`.
    case acknowledgeSubscription(packageName: String, subscriptionId: String, token: String)
    /// `GET …/purchases/products/{productId}/tokens/{token}` → `ProductPurchase`.
    case getProduct(packageName: String, productId: String, token: String)
    /// `POST …/purchases/products/{productId}/tokens/{token}:acknowledge` with `AcknowledgeRequest`.
    case acknowledgeProduct(packageName: String, productId: String, token: String)
    /// `POST …/purchases/products/{productId}/tokens/{token}:consume`.
    case consumeProduct(packageName: String, productId: String, token: String)
    /// `GET …/purchases/productsv2/tokens/{token}` → `ProductPurchaseV2`.
    case getProductV2(packageName: String, token: String)
    /// `GET …/purchases/voidedpurchases` → `VoidedPurchasesListResponse`.
    case listVoidedPurchases(packageName: String)
    /// `GET …/orders/{orderId}` → `GooglePlayOrder` (Google's `Order`).
    case getOrder(packageName: String, orderId: String)
    /// `GET …/orders:batchGet?orderIds=…&orderIds=…` → `BatchGetOrdersResponse`.
    case batchGetOrders(packageName: String)

    /// The common prefix: `/androidpublisher/v3/applications/`.
    public static let prefix = "/androidpublisher/v3/applications/"

    /// `GET` or `POST`.
    public var method: String {
        switch self {
        case .getSubscriptionV2, .getProduct, .getProductV2, .listVoidedPurchases, .getOrder, .batchGetOrders: "GET"
        default: "POST"
        }
    }

    /// The package the route acts in.
    public var packageName: String {
        switch self {
        case .getSubscriptionV2(let package, _), .revokeSubscriptionV2(let package, _),
            .cancelSubscriptionV2(let package, _), .deferSubscriptionV2(let package, _),
            .acknowledgeSubscription(let package, _, _), .getProduct(let package, _, _),
            .acknowledgeProduct(let package, _, _), .consumeProduct(let package, _, _),
            .getProductV2(let package, _), .listVoidedPurchases(let package), .getOrder(let package, _),
            .batchGetOrders(let package):
            package
        }
    }

    /// The percent-encoded path, starting with `/androidpublisher/v3/`.
    public var path: String {
        let package = Self.encode(packageName)
        let base = Self.prefix + package + "/purchases/"
        switch self {
        case .getOrder(_, let orderId): return Self.prefix + package + "/orders/" + Self.encode(orderId)
        case .batchGetOrders: return Self.prefix + package + "/orders:batchGet"
        case .getSubscriptionV2(_, let token): return base + "subscriptionsv2/tokens/" + Self.encode(token)
        case .revokeSubscriptionV2(_, let token):
            return base + "subscriptionsv2/tokens/" + Self.encode(token) + ":revoke"
        case .cancelSubscriptionV2(_, let token):
            return base + "subscriptionsv2/tokens/" + Self.encode(token) + ":cancel"
        case .deferSubscriptionV2(_, let token): return base + "subscriptionsv2/tokens/" + Self.encode(token) + ":defer"
        case .acknowledgeSubscription(_, let id, let token):
            return base + "subscriptions/" + Self.encode(id) + "/tokens/" + Self.encode(token) + ":acknowledge"
        case .getProduct(_, let id, let token):
            return base + "products/" + Self.encode(id) + "/tokens/" + Self.encode(token)
        case .acknowledgeProduct(_, let id, let token):
            return base + "products/" + Self.encode(id) + "/tokens/" + Self.encode(token) + ":acknowledge"
        case .consumeProduct(_, let id, let token):
            return base + "products/" + Self.encode(id) + "/tokens/" + Self.encode(token) + ":consume"
        case .getProductV2(_, let token): return base + "productsv2/tokens/" + Self.encode(token)
        case .listVoidedPurchases: return base + "voidedpurchases"
        }
    }

    /// The route of a method and a (percent-encoded) path, or `nil` when it is none of these. Segments are
    /// percent-decoded and must be acceptable `WireText`.
    public init?(method: String, path: String) {
        guard path.hasPrefix(Self.prefix), path.utf8.count <= 8192 else { return nil }
        var segments = path.dropFirst(Self.prefix.count).split(separator: "/", omittingEmptySubsequences: false)
            .map(String.init)
        // A custom method (`:revoke`) is a suffix of the last segment; tokens themselves never hold a colon.
        var verb: String?
        if let last = segments.last, let colon = last.lastIndex(of: ":") {
            verb = String(last[last.index(after: colon)...])
            segments[segments.count - 1] = String(last[..<colon])
        }
        var decoded: [String] = []
        for segment in segments {
            guard let value = segment.removingPercentEncoding,
                WireText.isAcceptable(value, maximumLength: WireText.maximumPurchaseTokenLength)
            else { return nil }
            decoded.append(value)
        }
        guard decoded.count >= 2, WireText.isAcceptable(decoded[0], maximumLength: WireText.maximumPackageNameLength)
        else { return nil }
        let package = decoded[0]
        if decoded[1] == "orders", method == "GET" {
            switch (decoded.count, verb) {
            case (2, "batchGet"): self = .batchGetOrders(packageName: package)
            case (3, nil) where WireText.isAcceptable(decoded[2], maximumLength: WireText.maximumIdentifierLength):
                self = .getOrder(packageName: package, orderId: decoded[2])
            default: return nil
            }
            return
        }
        guard decoded.count >= 3, decoded[1] == "purchases" else { return nil }
        let rest = Array(decoded.dropFirst(2))
        switch (method, rest.count, rest.first, verb) {
        case ("GET", 1, "voidedpurchases", nil):
            self = .listVoidedPurchases(packageName: package)
        case (_, 3, "subscriptionsv2", _) where rest[1] == "tokens":
            switch (method, verb) {
            case ("GET", nil): self = .getSubscriptionV2(packageName: package, token: rest[2])
            case ("POST", "revoke"): self = .revokeSubscriptionV2(packageName: package, token: rest[2])
            case ("POST", "cancel"): self = .cancelSubscriptionV2(packageName: package, token: rest[2])
            case ("POST", "defer"): self = .deferSubscriptionV2(packageName: package, token: rest[2])
            default: return nil
            }
        case (_, 3, "productsv2", nil) where rest[1] == "tokens" && method == "GET":
            self = .getProductV2(packageName: package, token: rest[2])
        case (_, 4, "subscriptions", "acknowledge") where rest[2] == "tokens" && method == "POST":
            self = .acknowledgeSubscription(packageName: package, subscriptionId: rest[1], token: rest[3])
        case (_, 4, "products", _) where rest[2] == "tokens":
            switch (method, verb) {
            case ("GET", nil): self = .getProduct(packageName: package, productId: rest[1], token: rest[3])
            case ("POST", "acknowledge"):
                self = .acknowledgeProduct(packageName: package, productId: rest[1], token: rest[3])
            case ("POST", "consume"): self = .consumeProduct(packageName: package, productId: rest[1], token: rest[3])
            default: return nil
            }
        default:
            return nil
        }
    }

    private static let unreserved: CharacterSet = {
        var set = CharacterSet.alphanumerics.intersection(
            CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        set.insert(charactersIn: "-._~")
        return set
    }()

    private static func encode(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: unreserved) ?? segment
    }
}

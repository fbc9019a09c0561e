/// Which endpoint family a fault applies to.
public enum FaultEndpoint: String, Sendable, Codable, CaseIterable {
    /// `POST /verifyReceipt` and `POST /sandbox/verifyReceipt`.
    case verifyReceipt = "verify_receipt"
    /// Every App Store Server API route.
    case serverAPI = "server_api"
}

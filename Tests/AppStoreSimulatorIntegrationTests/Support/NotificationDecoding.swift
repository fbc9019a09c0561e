import AppStore
import Foundation

/// Decodes the V2 notifications a receiver got, verifying each with the fixture's verifier.
extension SimulatorFixture {
    func decodeNotifications(_ bodies: [Data]) async throws -> [VerifiedNotificationV2] {
        let decoder = ServerNotificationDecoder(verifier: try verifier(), sharedSecret: nil)
        var notifications: [VerifiedNotificationV2] = []
        for body in bodies { notifications.append(try await decoder.decodeV2(body: body)) }
        return notifications
    }
}

extension VerifiedNotificationV2 {
    /// `TYPE` or `TYPE/SUBTYPE`.
    var kind: String {
        [payload.rawNotificationType, payload.rawSubtype].compactMap { $0 }.joined(separator: "/")
    }
}

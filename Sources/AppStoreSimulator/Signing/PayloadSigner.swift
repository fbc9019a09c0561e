import AppStore
import Foundation

/// Signs payloads as the App Store does: compact JWS with the header `{"alg":"ES256","x5c":[leaf, WWDR, root]}`.
struct PayloadSigner: Sendable {
    let chain: SigningChain
    private let signer: JWSSigner
    private let header: JWSHeader

    init(chain: SigningChain) throws {
        self.chain = chain
        self.signer = JWSSigner(chain: chain)
        self.header = JWSHeader(algorithm: "ES256", certificateChain: try chain.x5c())
    }

    func sign(_ payload: some Encodable) throws(SimulatorError) -> String {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return try signer.sign(payloadBytes: try encoder.encode(payload), header: header)
        } catch {
            throw SimulatorError(.internalError, "signing failed")
        }
    }
}

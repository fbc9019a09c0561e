import Foundation
import NIOPosix

/// Turns a webhook URL's host name into the addresses a delivery may connect to, so that each one can be
/// checked with `WebhookURLPolicy.check(address:allowPrivateNetwork:)` before connecting.
///
/// A struct of one closure: the system resolver in production, a fixed table in tests (a name that resolves to
/// a private address cannot be had from a test machine's DNS).
public struct WebhookAddressResolver: Sendable {
    public var resolve: @Sendable (_ host: String) async throws -> [WebhookURLPolicy.IPAddress]

    public init(resolve: @escaping @Sendable (_ host: String) async throws -> [WebhookURLPolicy.IPAddress]) {
        self.resolve = resolve
    }

    /// `getaddrinfo`, run on NIO's blocking thread pool (never on the cooperative pool). A literal address is
    /// returned as it is.
    public static let system = WebhookAddressResolver { host in
        if let literal = WebhookURLPolicy.IPAddress(host) { return [literal] }
        return try await NIOThreadPool.singleton.runIfActive { try lookUp(host) }
    }

    private static func lookUp(_ host: String) throws -> [WebhookURLPolicy.IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw WebhookURLError(.invalidURL, "the host name \(host) does not resolve")
        }
        defer { freeaddrinfo(first) }
        var addresses: [WebhookURLPolicy.IPAddress] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if let address = entry.pointee.ai_addr, let text = numericHost(address, length: entry.pointee.ai_addrlen),
                let parsed = WebhookURLPolicy.IPAddress(text), !addresses.contains(parsed)
            {
                addresses.append(parsed)
            }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            throw WebhookURLError(.invalidURL, "the host name \(host) resolves to no address")
        }
        return addresses
    }

    private static func numericHost(_ address: UnsafeMutablePointer<sockaddr>, length: socklen_t) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return nil
        }
        // A scoped IPv6 address (fe80::1%eth0) is judged without its zone.
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.split(separator: "%", maxSplits: 1).first.map(String.init)
    }
}

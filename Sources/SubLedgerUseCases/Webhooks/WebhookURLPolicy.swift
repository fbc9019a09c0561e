import Foundation

/// Which URLs a webhook endpoint may have, and which addresses a delivery may connect to.
///
/// - `https` only; plain `http` only to a loopback host (`localhost`, `127.0.0.0/8`, `::1`), for
///   development with `subledger webhooks listen`.
/// - No user information in the URL, no fragment, a host, at most 2,048 bytes, no NUL or control bytes.
/// - Private, link-local, unique-local, carrier-grade NAT, multicast and unspecified addresses are refused
///   unless the endpoint was added with the explicit flag (`allowPrivateNetwork`); loopback counts as
///   private except for the `http` development case above. The check runs on the URL's literal host here
///   and, because a name can resolve anywhere, again on every resolved address before a delivery connects
///   (`check(address:allowPrivateNetwork:)`).
public enum WebhookURLPolicy {
    public static let maximumLength = 2048

    public struct Checked: Sendable, Hashable {
        public var url: String
        public var scheme: String
        public var host: String
        public var port: Int
        /// The host is a loopback name or address.
        public var isLoopback: Bool
    }

    public static func check(_ text: String, allowPrivateNetwork: Bool) throws(WebhookURLError) -> Checked {
        guard !text.isEmpty, text.utf8.count <= maximumLength else {
            throw WebhookURLError(.invalidURL, "the URL must be 1 to \(maximumLength) bytes long")
        }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F }) else {
            throw WebhookURLError(.invalidURL, "the URL contains spaces or control characters")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let rawHost = components.host, !rawHost.isEmpty
        else {
            throw WebhookURLError(.invalidURL, "the URL is not an absolute URL with a host")
        }
        guard components.user == nil, components.password == nil else {
            throw WebhookURLError(.invalidURL, "the URL must not contain a user name or password")
        }
        guard components.fragment == nil else {
            throw WebhookURLError(.invalidURL, "the URL must not contain a fragment")
        }
        let host = rawHost.hasPrefix("[") && rawHost.hasSuffix("]") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let lowered = host.lowercased()
        let literal = IPAddress(lowered)
        let isLoopback = lowered == "localhost" || lowered.hasSuffix(".localhost") || (literal?.isLoopback ?? false)
        switch scheme {
        case "https":
            break
        case "http":
            guard isLoopback else {
                throw WebhookURLError(
                    .insecureURL, "webhook URLs must use https (plain http is allowed only to a loopback host)")
            }
        default:
            throw WebhookURLError(.invalidURL, "the URL's scheme must be https")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw WebhookURLError(.invalidURL, "the URL's port is out of range")
        }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        if let literal, !(scheme == "http" && isLoopback) {
            try check(address: literal, allowPrivateNetwork: allowPrivateNetwork)
        } else if scheme == "https", isLoopback, !allowPrivateNetwork {
            throw WebhookURLError(
                .privateAddress,
                "\(host) is a loopback host; add the endpoint with the private-network flag to allow it")
        }
        return Checked(url: text, scheme: scheme, host: lowered, port: port, isLoopback: isLoopback)
    }

    /// Refuses an address a delivery must not connect to.
    public static func check(address: IPAddress, allowPrivateNetwork: Bool) throws(WebhookURLError) {
        if address.isUnspecified || address.isMulticast {
            throw WebhookURLError(.privateAddress, "\(address) is not a unicast address")
        }
        if !allowPrivateNetwork, address.isPrivate {
            throw WebhookURLError(
                .privateAddress,
                "\(address) is a private, loopback or link-local address; add the endpoint with the private-network flag to allow it"
            )
        }
    }

    /// An IPv4 or IPv6 address, parsed from its text form.
    public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
        /// 4 bytes for IPv4, 16 for IPv6.
        public var bytes: [UInt8]

        public init?(_ text: String) {
            var v4 = in_addr()
            var v6 = in6_addr()
            if inet_pton(AF_INET, text, &v4) == 1 {
                bytes = withUnsafeBytes(of: &v4) { Array($0) }
            } else if inet_pton(AF_INET6, text, &v6) == 1 {
                let all = withUnsafeBytes(of: &v6) { Array($0) }
                // An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is judged as the IPv4 address it carries.
                if all[0..<10].allSatisfy({ $0 == 0 }), all[10] == 0xFF, all[11] == 0xFF {
                    bytes = Array(all[12..<16])
                } else {
                    bytes = all
                }
            } else {
                return nil
            }
        }

        public var description: String {
            if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
            return stride(from: 0, to: 16, by: 2).map {
                String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
            }
            .joined(separator: ":")
        }

        public var isLoopback: Bool {
            bytes.count == 4 ? bytes[0] == 127 : bytes == Array(repeating: 0, count: 15) + [1]
        }

        public var isUnspecified: Bool { bytes.allSatisfy { $0 == 0 } }

        public var isMulticast: Bool { bytes.count == 4 ? (224...239).contains(bytes[0]) : bytes[0] == 0xFF }

        /// Not reachable on the public internet: RFC 1918, loopback, link-local, CGNAT (100.64/10),
        /// "this network" (0/8), benchmarking (198.18/15), reserved (240/4), IPv6 unique-local (fc00::/7)
        /// and link-local (fe80::/10), and the IPv6 loopback.
        public var isPrivate: Bool {
            if isLoopback { return true }
            if bytes.count == 4 {
                let (a, b) = (bytes[0], bytes[1])
                return a == 0 || a == 10 || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168)
                    || (a == 169 && b == 254) || (a == 100 && (64...127).contains(b))
                    || (a == 198 && (18...19).contains(b))
                    || a >= 240
            }
            return (bytes[0] & 0xFE) == 0xFC || (bytes[0] == 0xFE && (bytes[1] & 0xC0) == 0x80)
        }
    }
}

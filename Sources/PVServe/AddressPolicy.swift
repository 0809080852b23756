#if Serve
import Foundation
import HTTPTypes
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which addresses `GET /api/remove?url=` may fetch from: public unicast only. Loopback, private, shared (CGNAT),
/// link-local, multicast, documentation, benchmarking and other reserved ranges (IANA's special-purpose registries)
/// are refused, for IPv4, IPv6 and IPv4 inside IPv6 alike.
enum AddressPolicy {
    /// Whether the IPv4 address (network byte order, as four bytes) is public unicast.
    static func isPublic(v4 b: [UInt8]) -> Bool {
        guard b.count == 4 else { return false }
        let v = UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
        let refused: [(UInt32, Int)] = [
            (0x0000_0000, 8), (0x0A00_0000, 8), (0x6440_0000, 10), (0x7F00_0000, 8), (0xA9FE_0000, 16),
            (0xAC10_0000, 12), (0xC000_0000, 24), (0xC000_0200, 24), (0xC058_6300, 24), (0xC0A8_0000, 16),
            (0xC612_0000, 15), (0xC633_6400, 24), (0xCB00_7100, 24), (0xE000_0000, 4), (0xF000_0000, 4),
        ]
        return !refused.contains { prefix, length in v >> (32 - length) == prefix >> (32 - length) }
    }

    /// Whether the IPv6 address (sixteen bytes) is public unicast: inside 2000::/3 and outside its special ranges.
    static func isPublic(v6 b: [UInt8]) -> Bool {
        guard b.count == 16 else { return false }
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses are their IPv4 address.
        if b[0..<10].allSatisfy({ $0 == 0 }), (b[10] == 0xFF && b[11] == 0xFF) || (b[10] == 0 && b[11] == 0) {
            return isPublic(v4: Array(b[12..<16]))
        }
        guard b[0] & 0xE0 == 0x20 else { return false }  // global unicast only (this also refuses ::, ::1, fc00::/7, fe80::/10, ff00::/8)
        let refused: [([UInt8], Int)] = [
            ([0x20, 0x01, 0x00, 0x00], 23),  // IETF protocol assignments (Teredo, benchmarking, ORCHID…)
            ([0x20, 0x01, 0x0D, 0xB8], 32),  // documentation
            ([0x20, 0x02], 16),  // 6to4: an IPv4 address inside
            ([0x3F, 0xFF], 20),  // documentation (RFC 9637)
        ]
        return !refused.contains { prefix, length in
            (0..<length).allSatisfy { bit in
                let mask = UInt8(0x80 >> (bit % 8))
                let p = bit / 8 < prefix.count ? prefix[bit / 8] : 0
                return b[bit / 8] & mask == p & mask
            }
        }
    }

    /// Every address `host` resolves to (getaddrinfo), as byte arrays of four or sixteen bytes.
    /// - Throws: ``ServeError`` 400 `url_unresolvable` when the name does not resolve.
    static func resolve(_ host: String) throws -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0, let first = list else {
            throw ServeError(.badRequest, "url_unresolvable", "the host '\(host)' does not resolve")
        }
        defer { freeaddrinfo(first) }
        var addresses: [[UInt8]] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let n = node {
            if let sa = n.pointee.ai_addr {
                if n.pointee.ai_family == AF_INET {
                    sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                        addresses.append(withUnsafeBytes(of: p.pointee.sin_addr) { Array($0) })
                    }
                } else if n.pointee.ai_family == AF_INET6 {
                    sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                        addresses.append(withUnsafeBytes(of: p.pointee.sin6_addr) { Array($0) })
                    }
                }
            }
            node = n.pointee.ai_next
        }
        return addresses
    }

    /// Throws unless every address of `url`'s host is public and its scheme is http or https.
    static func check(_ url: URL) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw ServeError(.badRequest, "url_refused", "only http and https URLs are fetched")
        }
        guard var host = url.host, !host.isEmpty else { throw ServeError(.badRequest, "url_refused", "the URL has no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let addresses = try resolve(host)
        guard !addresses.isEmpty else { throw ServeError(.badRequest, "url_unresolvable", "the host '\(host)' has no address") }
        for a in addresses where !(a.count == 4 ? isPublic(v4: a) : isPublic(v6: a)) {
            throw ServeError(
                .badRequest, "url_refused",
                "the host '\(host)' resolves to a loopback, private, link-local or reserved address; it is not fetched")
        }
    }
}
#endif

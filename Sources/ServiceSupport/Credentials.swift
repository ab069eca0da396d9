/// Whether `a` equals `b`, in a time that depends on their lengths alone: for comparing a secret a request sent
/// (a bearer token, a CSRF token) with the one expected, so that how long the answer takes tells nothing of how
/// much of it was right.
public func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let a = Array(a.utf8), b = Array(b.utf8)
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for index in a.indices { difference |= a[index] ^ b[index] }
    return difference == 0
}

/// The token of an `Authorization` header value in the `Bearer` scheme (RFC 6750), e.g. `Bearer s3cret` or
/// `bearer s3cret`: the scheme's name is matched without regard to case (RFC 7235, section 2.1). Nil without a
/// header, for another scheme, or with no token.
public func bearerToken(in authorization: String?) -> String? {
    guard let authorization else { return nil }
    let scheme = authorization.prefix { $0 != " " }
    guard scheme.lowercased() == "bearer" else { return nil }
    let token = authorization.dropFirst(scheme.count).drop { $0 == " " }
    return token.isEmpty ? nil : String(token)
}

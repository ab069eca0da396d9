/// The version of the stream envelope (`{"version","type","seq","time","source","data"}`).
///
/// Consumers ignore members they do not know, so adding a member (to the envelope or a payload) keeps the
/// version; a change an older reader would misread (a member removed, renamed or retyped, a meaning
/// changed) bumps it, and a reader refuses an envelope of a version it does not know.
public enum EnvelopeVersion {
    /// The version this code writes, and the newest it reads.
    public static let current = 1
    /// The versions this code reads; an envelope without a version (written before envelopes had one) is version 1.
    public static let readable = 1...current
}

extension Int64 {
    /// `self + other`, or `Int64.max`/`Int64.min` where that overflows. Times a server sends
    /// (`expires_in`, a JWT's `exp`, `auth_time`) may be any 64-bit integer; a sum with the
    /// clock must give an answer (a time in the far future or past), never a trap.
    func addingSaturating(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self - other`, or `Int64.max`/`Int64.min` where that overflows.
    func subtractingSaturating(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other < 0 ? .max : .min
    }
}

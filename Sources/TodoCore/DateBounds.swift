/// The dates a front end may write: 1970-01-01 through 2199-12-31 (docs/CALDAV.md, "Limits").
public enum DateBounds {
    public static let first = (1970, 1, 1)
    public static let last = (2199, 12, 31)
}

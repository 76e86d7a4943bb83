package io.durablejournal.identity;

/** Finds what strict UTF-8 ({@link io.durablejournal.internal.Utf8}) would refuse, to name it in an error. */
final class Text {
    private Text() {}

    /** Index of the first unpaired surrogate in {@code s}, or -1. */
    static int loneSurrogateAt(CharSequence s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return i;
            }
            if (Character.isLowSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }
}

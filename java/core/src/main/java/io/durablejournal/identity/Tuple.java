package io.durablejournal.identity;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * An immutable ordered sequence that encodes as a tuple, not a list: the Java counterpart of a
 * Python tuple, so Java can name a call whose Python twin passes one. A {@link List} encodes as a
 * list.
 */
public final class Tuple {
    private final List<Object> items;

    private Tuple(List<Object> items) {
        this.items = Collections.unmodifiableList(items);
    }

    public static Tuple of(Object... items) {
        return new Tuple(new ArrayList<>(Arrays.asList(items)));
    }

    public static Tuple copyOf(List<?> items) {
        return new Tuple(new ArrayList<>(items));
    }

    public List<Object> items() {
        return items;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Tuple && items.equals(((Tuple) other).items);
    }

    @Override
    public int hashCode() {
        return items.hashCode();
    }

    @Override
    public String toString() {
        return "Tuple" + items;
    }
}

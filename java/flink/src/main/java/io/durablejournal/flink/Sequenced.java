package io.durablejournal.flink;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.api.java.typeutils.TupleTypeInfo;

/**
 * An input record with its business key and its per-key sequence number: what the keyed step of
 * {@link DurableAsyncActions} hands to {@link DurableAsyncActionFunction}. The async operator
 * checkpoints its in-flight records in this form, so a restored record keeps the sequence number
 * (and with it the store entry and journal) it had before the failover.
 *
 * <p>A {@link Tuple3} ({@code f0} key, {@code f1} sequence number, {@code f2} input) so that Flink
 * serializes it with the key's and the input's own serializers; {@link #typeInfo} builds its type.
 */
@SuppressWarnings("unchecked") // Tuple3.copy() overrides the generic Tuple.copy()
public class Sequenced<K, IN> extends Tuple3<K, Long, IN> {
    private static final long serialVersionUID = 1L;

    /** For Flink's tuple serializer. */
    public Sequenced() {}

    public Sequenced(K key, long seq, IN input) {
        super(key, seq, input);
    }

    public K key() {
        return f0;
    }

    public long seq() {
        return f1;
    }

    public IN input() {
        return f2;
    }

    /** A shallow copy that stays a {@code Sequenced}. */
    @Override
    public Sequenced<K, IN> copy() {
        Sequenced<K, IN> copy = new Sequenced<>();
        copy.f0 = f0;
        copy.f1 = f1;
        copy.f2 = f2;
        return copy;
    }

    @SuppressWarnings("rawtypes")
    public static <K, IN> TypeInformation<Sequenced<K, IN>> typeInfo(TypeInformation<K> keyType, TypeInformation<IN> inputType) {
        return new TupleTypeInfo<>((Class) Sequenced.class, keyType, Types.LONG, inputType);
    }

    @Override
    public String toString() {
        return "Sequenced(" + f0 + ", " + f1 + ", " + f2 + ")";
    }
}

package io.durablejournal.flink;

import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * The keyed step in front of {@link DurableAsyncActionFunction}: numbers each key's records 0, 1,
 * 2, ... in keyed state, so the numbering restarts from the checkpoint after a failover and a
 * replayed record gets the number (and the store entry) it had before.
 */
final class SequenceNumbers<K, IN> extends KeyedProcessFunction<K, IN, Sequenced<K, IN>> {
    private static final long serialVersionUID = 1L;

    private transient ValueState<Long> nextSeq;

    @Override
    public void open(OpenContext openContext) {
        nextSeq = getRuntimeContext().getState(new ValueStateDescriptor<>("durable-journal-next-seq", Types.LONG));
    }

    @Override
    public void processElement(IN input, Context ctx, Collector<Sequenced<K, IN>> out) throws Exception {
        Long stored = nextSeq.value();
        long seq = stored == null ? 0 : stored;
        out.collect(new Sequenced<>(ctx.getCurrentKey(), seq, input));
        nextSeq.update(seq + 1);
    }
}

package io.durablejournal.flink;

import java.util.Objects;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichFlatMapFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.types.Either;
import org.apache.flink.util.Collector;

/**
 * The step after {@link DurableAsyncActionFunction}: forwards the action outputs ({@code Left})
 * and confirms to the function's {@link EmissionLedger} each record's end marker ({@code Right}
 * ordinal), which the function emits after the record's outputs.
 */
final class EmittedRecords<OUT> extends RichFlatMapFunction<Either<OUT, Long>, OUT> implements ResultTypeQueryable<OUT> {
    private static final long serialVersionUID = 1L;

    private final String pipeline;
    private final TypeInformation<OUT> outputType;
    private transient EmissionLedger ledger;

    EmittedRecords(String pipeline, TypeInformation<OUT> outputType) {
        this.pipeline = Objects.requireNonNull(pipeline, "pipeline");
        this.outputType = Objects.requireNonNull(outputType, "outputType");
    }

    @Override
    public void open(OpenContext openContext) {
        ledger = EmissionLedger.acquire(pipeline, getRuntimeContext());
    }

    @Override
    public void flatMap(Either<OUT, Long> value, Collector<OUT> out) {
        if (value.isLeft()) {
            out.collect(value.left());
        } else {
            ledger.confirm(value.right());
        }
    }

    @Override
    public void close() {
        if (ledger != null) {
            ledger.release();
            ledger = null;
        }
    }

    @Override
    public TypeInformation<OUT> getProducedType() {
        return outputType;
    }
}

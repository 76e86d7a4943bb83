package io.durablejournal.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What a TaskManager process holds after a full GC: its resident memory, the mappings of the
 * native library ({@code /proc/<pid>/maps} lines naming {@code libdurable_journal}; a class loader
 * that loaded it and is still alive keeps its copy mapped) and the job class loaders alive (Flink's
 * {@code ChildFirstClassLoader} instances, from a class histogram). Read with {@code jcmd}, which
 * attaches to the process as a JDK tool does.
 */
final class ProcessFootprint {
    final long rssKb;
    final int libraryMappings;
    final int jobClassLoaders;

    private ProcessFootprint(long rssKb, int libraryMappings, int jobClassLoaders) {
        this.rssKb = rssKb;
        this.libraryMappings = libraryMappings;
        this.jobClassLoaders = jobClassLoaders;
    }

    /** Runs a full GC in {@code pid} (twice: a class loader is collected after its classes), then reads. */
    static ProcessFootprint afterGc(long pid) throws Exception {
        jcmd(pid, "GC.run");
        String histogram = jcmd(pid, "GC.class_histogram");
        int loaders = 0;
        for (String line : histogram.split("\n")) {
            String[] columns = line.trim().split("\\s+");
            if (columns.length >= 4 && columns[3].endsWith(".ChildFirstClassLoader")) {
                loaders += Integer.parseInt(columns[1]);
            }
        }
        return new ProcessFootprint(rssKb(pid), libraryMappings(pid), loaders);
    }

    private static long rssKb(long pid) throws IOException {
        for (String line : Files.readAllLines(Paths.get("/proc/" + pid + "/status"), StandardCharsets.UTF_8)) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IllegalStateException("no VmRSS in /proc/" + pid + "/status");
    }

    private static int libraryMappings(long pid) throws IOException {
        List<String> maps = Files.readAllLines(Paths.get("/proc/" + pid + "/maps"), StandardCharsets.UTF_8);
        return (int) maps.stream().filter(l -> l.contains("libdurable_journal")).count();
    }

    private static String jcmd(long pid, String command) throws Exception {
        String jcmd = Paths.get(System.getProperty("java.home"), "bin", "jcmd").toString();
        Process process = new ProcessBuilder(jcmd, Long.toString(pid), command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException("jcmd " + pid + " " + command + " failed: " + output);
        }
        return output;
    }

    @Override
    public String toString() {
        return "RSS " + (rssKb / 1024) + " MB, " + libraryMappings + " libdurable_journal mappings, " + jobClassLoaders
                + " job class loaders";
    }
}

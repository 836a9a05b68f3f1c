package io.orderflow.ops.bench;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ExecutionException;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * How every benchmark reads its command line: picocli, on an object whose {@code @Option}s declare each option with its
 * default (so {@code --help} is generated from them); a later occurrence of an option wins, as the scripts rely on (they
 * pass their own options first, then the user's). Exit codes: 0 after {@code --help}, 2 with picocli's message naming
 * the option for a bad command line, otherwise the benchmark's own.
 *
 * <p>Options a script passes itself (where it put the private copies of what is measured) sit in an argument group of
 * their own: {@link #command} leaves them out of the command a person would type.
 */
public final class BenchCommandLine {
    private BenchCommandLine() {}

    /** picocli's command line for {@code options}, an object with {@code @Command} and {@code @Option}s. */
    public static CommandLine of(Object options) {
        return new CommandLine(options).setOverwrittenOptionsAllowed(true).setUsageHelpWidth(120);
    }

    /**
     * {@link #of}, running {@code benchmark} once {@code options} are read (unless {@code --help} was asked for);
     * {@link CommandLine#execute} returns the benchmark's exit code.
     */
    public static CommandLine of(Object options, Callable<Integer> benchmark) {
        CommandLine commandLine = of(options);
        commandLine.setExecutionStrategy(parsed -> {
            Integer help = CommandLine.executeHelpRequest(parsed);
            if (help != null) {
                return help;
            }
            try {
                return benchmark.call();
            } catch (ParameterException e) {
                throw e;
            } catch (Exception e) {
                throw new ExecutionException(commandLine, "The benchmark failed: " + e, e);
            }
        });
        return commandLine;
    }

    /**
     * The command that measured the figures, as printed beside them: the command's name (the script) and the options
     * as given, each as {@code --name value} in the order given, minus those of an argument group (the script's
     * plumbing). A person can type it again to measure the same.
     */
    public static String command(CommandSpec spec) {
        List<String> typed = new ArrayList<>();
        Map<ArgSpec, Integer> occurrences = new IdentityHashMap<>();
        for (ArgSpec arg : spec.commandLine().getParseResult().matchedArgs()) {
            if (arg instanceof OptionSpec option && option.group() == null && !option.usageHelp()) {
                int occurrence = occurrences.merge(option, 1, Integer::sum) - 1;
                typed.add(option.longestName() + " "
                        + option.originalStringValues().get(occurrence));
            }
        }
        return typed.isEmpty() ? spec.name() : spec.name() + " " + String.join(" ", typed);
    }
}

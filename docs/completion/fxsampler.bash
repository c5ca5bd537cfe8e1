# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
# bash completion for fxsampler and fxsamplerd (bash-completion conventions:
# installed as completions/fxsampler, and as completions/fxsamplerd by a link).
# Options are the ones --help prints (tests/man/completion.sh checks that).

_fxsampler()
{
	local cur prev words cword split
	_init_completion -s || return

	local cmds="record report dump status"
	local cmd= i
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		record | report | dump | status)
			cmd=${words[i]}
			break
			;;
		esac
	done

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--help --version' -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$cmds" -- "$cur"))
		fi
		return
	fi

	case $cmd in
	record)
		# after --, the command line of the program to profile
		for ((j = i + 1; j < cword; j++)); do
			if [[ ${words[j]} == -- ]]; then
				_command_offset $((j + 1))
				return
			fi
		done
		case $prev in
		-p | --pid)
			_pids
			return
			;;
		-o | --output)
			_filedir fxt
			return
			;;
		--socket)
			_filedir
			return
			;;
		--walker)
			COMPREPLY=($(compgen -W 'fast simple' -- "$cur"))
			return
			;;
		--unwind)
			COMPREPLY=($(compgen -W 'auto fp cfi' -- "$cur"))
			return
			;;
		--python)
			COMPREPLY=($(compgen -W 'on off' -- "$cur"))
			return
			;;
		-F | --freq | --period | -d | --duration | --buffer-size | --max-frames | --cfi-memory)
			return
			;;
		esac
		$split && return
		COMPREPLY=($(compgen -W '--pid --all --freq --period --duration --output
			--buffer-size --max-frames --compress --no-inherit --quiet --verbose
			--daemon --socket --exit-status --off-cpu --kernel --python --preempt --unwind --cfi-memory --walker
			--no-mmap-events --allow-unsafe-kernel --help --version --' -- "$cur"))
		;;
	report)
		case $prev in
		--pprof | --svg | --perf-script | --perfetto)
			_filedir
			return
			;;
		--debug-dir)
			_filedir -d
			return
			;;
		--top | --pid | --tid | --debuginfod-max-size | --debuginfod-max-time | \
			--debuginfod-total-size | --debuginfod-total-time)
			return
			;;
		esac
		$split && return
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--top --lines --wide --folded --pprof --svg
				--svg-inverted --perf-script --perfetto --split-threads --split-processes
				--no-thread-frames --merge-threads --pid --tid --debug-dir
				--no-debuginfod --debuginfod-max-size --debuginfod-max-time
				--debuginfod-total-size --debuginfod-total-time --no-kernel --no-demangle
				--off-cpu --wall --help' -- "$cur"))
		else
			# captures, gzip-compressed ones too
			_filedir 'fxt?(.gz)'
		fi
		;;
	dump)
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--help' -- "$cur"))
		else
			_filedir 'fxt?(.gz)'
		fi
		;;
	status)
		case $prev in
		--socket)
			_filedir
			return
			;;
		esac
		COMPREPLY=($(compgen -W '--socket --help' -- "$cur"))
		;;
	esac
} &&
	complete -F _fxsampler fxsampler

_fxsamplerd()
{
	local cur prev words cword split
	_init_completion -s || return

	case $prev in
	-s | --socket | -c | --config)
		_filedir
		return
		;;
	esac
	$split && return
	COMPREPLY=($(compgen -W '--socket --config --verbose --allow-unsafe-kernel
		--help --version' -- "$cur"))
} &&
	complete -F _fxsamplerd fxsamplerd

# ex: filetype=sh

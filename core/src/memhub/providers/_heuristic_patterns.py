"""Data for the offline heuristic extractor and judge: cue regexes, lexicons and the
attribute table, Chinese and English side by side.

The attribute table is the judge's core. Each row names one attribute of the user or
the project (residence, employer, favourite X, a product's version, a meeting's time...)
and lists regexes with a named ``value`` group (and optionally a ``slot`` group, which
says *which* favourite, product or meeting). Two statements that fill the same attribute
and slot with different values conflict; see ``heuristic._compare_attributes``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memhub._cjk import HAN

CJK = HAN  # the patterns below name it so
_I = re.IGNORECASE


def _names(words: str) -> set[str]:
    return set(words.split("|"))


def _rx(*alternatives: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{a})" for a in alternatives), flags)


# -- Sentence classes ----------------------------------------------------------------


def _longest_first_atomic(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``^(?:w1|w2|…)+$`` as ``^(?>longest…shortest)+$``: linear instead of exponential.

    Words that overlap ("k", "kk", "ok"; "哈+" inside the outer "+") let the engine try
    every segmentation of a long run before failing ("哈"*40 + "?" took minutes). Each
    iteration commits to the longest word that matches there, which is how the list
    reads anyway ("youre" before "you").
    """
    body, depth, words, start = pattern.pattern[4:-3], 0, [], 0
    for i, ch in enumerate(body):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "|" and depth == 0:
            words.append(body[start:i])
            start = i + 1
    words.append(body[start:])
    words.sort(key=len, reverse=True)
    return re.compile(r"^(?>" + "|".join(words) + r")+$", pattern.flags)


# Matched against the punctuation-free, lower-cased clause: any run of these tokens is
# small talk ("好的记住了", "okthanks", "哈哈哈").
CHITCHAT = re.compile(
    r"^(?:你好|您好|嗨|哈喽|哈啰|早上好|晚上好|早安|晚安|再见|拜拜|谢谢你?|谢啦|多谢|感谢|"
    r"好的|好吧|好哒|好|行|可以|嗯+|哦+|噢|喔|啊+|对的|对|是的|没错|收到|明白了?|知道了|懂了|"
    r"了解|记住了|记下了|我明白了|我知道了|没问题|不客气|辛苦了|哈+|呵+|嘿+|嘻+|厉害|太棒了|"
    r"真棒|不错|很好|你说得对|有道理|原来如此|继续|加油|不用了?|不必了?|没事|没关系|太?好笑了?|"
    r"笑死(?:我了)?|太?有意思了?|有趣|好玩|"
    r"hi|hello|hey|yo|bye|goodbye|goodnight|goodmorning|morning|thanks|thank|you|thx|ty|"
    r"okay|ok|kk|k|sure|yes|yeah|yep|yup|nope|nah|no|cool|nice|great|awesome|perfect|fine|"
    r"alright|right|exactly|gotit|noted|isee|makessense|soundsgood|lol|(?:ha)+h?|wow|oh|ah|"
    r"hm+|np|noproblem|welcome|youre|very|much|so|good|thats|that|it|its|s|all|definitely|"
    r"congrats|congratulations|sounds|surething|woohoo|waytogo|nice(?:one|job|work)|goodjob|"
    r"noworries|takecare|i?agreed?|totally|anytime|cheers|samehere|forsure|yum+|aw+)+$"
)
CHITCHAT = _longest_first_atomic(CHITCHAT)
FILLER_PREFIX = _rx(
    r"^(?:好的|好吧|好|嗯+|哦+|噢|啊|哈+|呵+|嘿+|对的|对|是的|没错|行|收到|明白了?|知道了|懂了|"
    r"谢谢你?|多谢|感谢|你好|您好|嗨|哈喽)(?:[\s，,。.!！~、]+|$)",
    # an aside that only announces what follows ("Btw", "Quick update:", "对了，")
    r"^(?:对了|顺便说一下|顺便一提|另外|还有|跟你说一下|告诉你|更新一下)[，,:：\s]+",
    r"^(?:btw|by\s+the\s+way|fyi|(?:oh\s+and\s+|and\s+)?also(?=[\s,]+(?:i|we|my|our)\b)|anyway|(?:quick\s+|small\s+)?update"
    r"(?=\s*:)|side\s+note(?=\s*:)|ps(?=\s*:))\b[\s,.:!~]*",
    r"^(?:ok(?:ay)?|sure|yes|yeah|yep|well|so|oh|hi|hello|hey|thanks|thank\s+you|great|cool|"
    r"nice|alright|right|got\s+it)\b[\s,.!~]*",
    flags=_I,
)
# "As I said, …" / "我之前说过，…": a restatement marker is not part of the fact.
RESTATED = _rx(
    r"^(?:(?:就像|正如)?我(?:之前|以前|前面|刚才|上次)?(?:说过|讲过|提过|告诉过你)(?:的)?(?:那样)?|"
    r"再说一遍|重复一遍|重复一下|还是那句话)[\s，,：:。]*",
    r"^(?:(?:as|like)\s+i\s+(?:said|mentioned|told\s+you|wrote)(?:\s+(?:before|earlier|last\s+time))?|"
    r"again|to\s+repeat|just\s+to\s+repeat|for\s+the\s+record|as\s+mentioned)[\s,:]+",
    # and at the end: "Our backend is written in Go, as I said", "…，之前说过"
    r"(?<=\S)[\s，,]+(?:(?:as|like)\s+i\s+(?:said|mentioned|told\s+you)(?:\s+(?:before|earlier))?|"
    r"as\s+mentioned|(?:我)?(?:之前|以前|前面|刚才|上次)?(?:说过|讲过|提过)(?:了|的)?)[\s。.!！]*$",
    flags=_I,
)
# Talk about the weather, which is no fact of the user's ("今天天气真好！", "Nice weather today").
WEATHER = _rx(
    r"^(?:今天|今儿|这两天|最近|外面|这边)?的?天气(?:真的?|很|太|挺|还|也|可|好)?"
    r"(?:好|不错|棒|冷|热|晴|差|糟|舒服|凉快|闷|晴朗)(?:啊|呀|哦|了|呢|吧)?$",
    # the weather as the predicate, with a time or place first and a feeling after ("今天下雨了
    # 好烦", "今天真是热死了")
    r"^(?:今天|今儿|今晚|这两天|最近|外面|这边)?(?:又|真是|真的?|好|太|可|也太)?"
    r"(?:下雨|下雪|刮风|降温|热|冷|闷|晒)(?:死了|死|坏了|了)?"
    r"(?:[，,\s]*(?:好|真|太)?(?:烦|难受|舒服|爽))?(?:啊|呀|哦|了|呢|吧|啦)*$",
    r"^(?:what\s+a\s+|such\s+)?(?:nice|lovely|great|beautiful|terrible|awful|bad|crazy)\s+"
    r"weather(?:\s+today)?$|^(?:the\s+)?weather(?:'s|\s+is|\s+was|\s+has\s+been)\s+(?:so\s+|really\s+|"
    r"very\s+|pretty\s+|super\s+)?(?:nice|lovely|great|beautiful|terrible|awful|bad|crazy|perfect|"
    r"gorgeous|gloomy|weird)(?:\s+(?:today|lately|this\s+week))?(?:\s+huh)?$|^(?:it's|it\s+is)\s+(?:so\s+|really\s+)?(?:hot|cold|sunny|rainy|nice)"
    r"(?:\s+out)?(?:\s+today)?$",
    flags=_I,
)
# "哈哈今天好累" / "I'm so tired today": a passing state of the moment, not something to
# remember about the user next week (a state with a cause or a story stays a statement).
PASSING = _rx(
    r"^(?:哈+|呵+|嘿+|唉|哎)?[，,\s]*我?(?:今天|今晚|现在|这会儿|最近)?(?:真的?|好|太|有点|挺|特别|"
    r"非常|超|很)?(?:累|困|饿|撑|无聊|忙)(?:死了|死|坏了)?(?:啊|呀|哦|了|呢|吧|啦)*$",
    r"^(?:(?:haha|lol|ugh|man|phew|oh)[,\s]+)?(?:(?:i'm|i\s+am|i\s+feel|i'm\s+feeling)\s+)?"
    r"(?:so\s+|really\s+|very\s+|kind\s+of\s+|a\s+bit\s+|pretty\s+|super\s+)?"
    r"(?:tired|exhausted|sleepy|hungry|bored|busy|beat|wiped(?:\s+out)?)"
    r"(?:\s+(?:today|tonight|right\s+now|now|lately|this\s+week))?$",
    flags=_I,
)
# "记住：我对花生过敏" / "remember that I like tea": the instruction wraps a statement.
MEMORY_PREFIX = _rx(
    r"^(?:请|麻烦)?你?(?:帮我)?(?:记住|记一下|记下|记好)(?:一下)?[:：，,\s]*",
    r"^(?:please\s+)?(?:remember|note|keep\s+in\s+mind)(?:\s+that)?[:,\s]+",
    flags=_I,
)
COMMAND = _rx(
    r"^(?:请(?!问)|请问|麻烦|帮我|帮忙|帮个忙|给我|替我|你(?:帮|给|来|去|先|再)|能不能帮|能帮|可以帮|"
    r"能否|总结一?下|翻译|解释一下|写(?:一)?(?:个|段|篇|下)|生成|列出|查一下|查查|搜一下|搜索|"
    r"打开|运行|执行|看看|看一下|告诉我|说说|讲讲|介绍一下|分析一下|改一下|优化一下|重写|继续|"
    r"重试|再来|我想问|想请教|问一下|我想知道|推荐一下|推荐几)",
    r"^(?:please(?!\s+call\s+me\b)|pls|plz|kindly|can\s+you|could\s+you|would\s+you|will\s+you|help\s+me|write|"
    r"summari[sz]e|translate|explain|list|show\s+me|tell\s+me|give\s+me|generate|create|"
    r"make\s+(?:me|a|an)|find|search|look\s+up|fix|refactor|rewrite|draft|describe|continue|"
    r"go\s+ahead|try\s+again|let\s+me\s+know|i\s+want\s+to\s+ask|i\s+wonder|"
    r"i\s+have\s+a\s+question)\b",
    flags=_I,
)
QUESTION = _rx(
    r"[吗呢么嘛][\s~]*$",
    r"什么(?![都也])|怎么|怎样|为什么|为啥|哪(?!怕)|谁(?![都也])|几点|几个|几号|多少|是不是|能不能|"
    r"可不可以|有没有|要不要|会不会|对不对|好不好|行不行|是否|如何",
    r"^(?:what|how|why|where|who|whom|which|whose|when)(?:'s|\s+(?:is|are|was|were|do|does|did|"
    r"can|could|should|would|will|have|has|about|if|many|much|long|often|old|to)\b)",
    r"^(?:do|does|did|is|are|was|were|can|could|would|should|will|shall|may|have|has|am)\s+"
    r"(?:you|i|we|it|they|he|she|there|my|your|this|that)\b",
    flags=_I,
)
# A subject that points back to something the candidate does not name.
PRONOUN_SUBJECT = _rx(
    r"^(?:它们?|他们?|她们?)",
    r"^(?:这|那)(?:个|些|样)?(?=[是就也都还很太比更不没换改用能会可要挺真好在被把的]|$)",
    r"^(?:it|it's|they|they're|he|he's|she|she's|this's|that's)\b",
    r"^(?:this|that|these|those)(?:\s+one)?(?=\s+(?:is|was|are|were|will|should|works?|looks?|"
    r"seems?|sounds?|has|had|got|became|broke|failed|changed|moved)\b|\s*$)",
    flags=_I,
)

# Requests to the assistant: imperatives, "I want you to…", "把…翻译成…" (no subject before 把),
# suggestions ending in 吧 without a subject ("讲个笑话吧"). "remind me to …" is a reminder,
# kept (it is time-bound); "remind me which …" asks for something.
REQUEST = _rx(
    r"^(?:say|tell|give|show|repeat|remind\s+me(?!\s+to\b)|translate|write|explain|list|summari[sz]e|"
    r"make|find|search|look\s+up|check|help|send|book|set|add|remove|delete|update|open|play|read|"
    r"draft|compose|generate|recommend|suggest|describe|compare|calculate|convert|fix|run|stop|"
    r"cancel|answer|define|spell|count|sing|draw|rewrite|rephrase|shorten|expand|guess|pick|choose|"
    r"do\s+not|don't|let\s+me\s+know|go\s+on|keep\s+going)\b",
    r"^(?:i\s+(?:want|need|would\s+like|'d\s+like)\s+you\s+to|i'd\s+like\s+to\s+know|"
    r"i\s+(?:want|need)\s+(?:a|an|some)\s+(?:joke|poem|story|summary|translation|list|example))\b",
    r"^(?:把|将)(?!我)",
    r"^(?:讲|说|写|唱|画|来|念|读|背|算|查|找|编|出|给|列|推荐|介绍|翻译|解释|总结|分析|比较|计算|"
    r"搜|看|改|润色|想)(?:个|一个|一首|一段|一篇|一下|几个|一些|点)",
    r"^(?:我(?:想|要)(?:让|请)?你|我需要你|你(?:能|可以|帮|给|来|去|再))",
    r"^(?:再|多|少)?(?:详细|具体|简单|简短|通俗|正式|口语化|短|长|清楚|直白)(?:一?点|一些)",
    r"^(?:换(?:个|一个|一种)|举(?:个|几个)|重新|再来|再写|再说)",
    r"^(?![我咱])[^，,。]{0,12}吧$",
    flags=_I,
)
# The user takes back what they just said in the same sentence.
SELF_CORRECTION = re.compile(
    r"^(?:不对|不是不是|说错了|我说错了|口误|更正一下|纠正一下|(?i:no\s+wait|wait\s+no|sorry|i\s+mean|"
    r"correction|scratch\s+that|i\s+misspoke))[\s!！.。]*$"
)
# Verdicts on the assistant's answer: not facts about the user.
ABOUT_ASSISTANT = _rx(
    r"\byou(?:'re|\s+are|\s+were)\s+(?:(?:totally|completely|so|absolutely)\s+)?(?:wrong|right|"
    r"mistaken|correct|confused)\b",
    r"\byou\s+(?:misunderstood|misread|forgot|got\s+(?:it|that|this)\s+wrong|didn't\s+understand)",
    r"\b(?:that's|that\s+is|this\s+is|it's)\s+(?:not\s+(?:right|correct|true|what\s+i)|wrong|"
    r"incorrect|a\s+(?:good|great|bad)\s+(?:answer|point|idea))",
    r"\bnot\s+what\s+i\s+(?:asked|meant|wanted)\b|\b(?:good|great|nice|bad|wrong)\s+answer\b",
    r"\b(?:answer|response|reply|explanation|suggestion|code)s?\s+(?:doesn't|does\s+not|didn't|isn't|"
    r"is\s+not|wasn't)\s+(?:help|work|right|correct|useful|make\s+sense)|\bnot\s+(?:helpful|useful)\b",
    r"(?:回答|答案|说法|解释|建议|代码)(?:没用|没有用|不行|太长了?|太短了?|太啰嗦了?|看不懂|不清楚|不好)",
    r"我(?:问|说|要)的不是",
    r"^(?:that's|this\s+is|it's|so|how|very)\s+(?:so\s+|really\s+)?(?:funny|hilarious|interesting|"
    r"helpful|useful|cool|weird|strange)\b",
    r"你(?:说|讲|答|记|理解|写|翻译|算)?(?:得|的)?(?:不对|错了|有误|对了|没错|很对)",
    r"你(?:说|记|搞|弄|理解|算|答|写)错了?",
    r"(?:这个|你的|刚才的)?(?:回答|答案|说法)(?:不对|错了|有误|很好|不错|有问题|不准确)",
    r"不是我(?:要|想要|问|说)的",
    flags=_I,
)
# Talk about the memory itself ("forget what I just said", "你还记得吗").
META_MEMORY = _rx(
    r"\b(?:forget|ignore|disregard|erase|delete|scratch)\b(?:\s+\w+){0,3}\s+"
    r"(?:what\s+i\s+(?:just\s+)?(?:said|told\s+you|wrote)|that|this|it|everything|my\s+last)\b",
    r"\b(?:forget|ignore|disregard)\s+(?:it|that|this|everything)\b",
    r"\bdon't\s+(?:remember|save|store|record)\b|\bdo\s+you\s+(?:still\s+)?remember\b",
    r"(?:忘(?:掉|记)|别记|不要记|不用记|删掉|删除|清除|撤回)(?:我|掉)?(?:刚才|刚刚|之前|上面)?(?:说的|讲的|那句|这句|这个|那个|那些|的话)",
    r"你(?:还)?记(?:得|住了?)(?:吗|么|没有?)",
    r"(?:那|这|上)(?:一)?句(?:话)?(?:别|不要|不用)(?:记|存|保存)",
    flags=_I,
)
# Deferrals and hedges: the user has not said anything yet.
DEFERRAL = _rx(
    r"^(?:let\s+me\s+(?:think|see|check|get\s+back)|i'll\s+(?:think|get\s+back|let\s+you\s+know)|"
    r"i\s+(?:need|have)\s+to\s+think|(?:i'm\s+)?not\s+sure|no\s+idea|dunno|i\s+don't\s+know|never\s*mind|maybe\s+later|"
    r"we'll\s+see|forget\s+it|not\s+now|hold\s+on|wait)\b",
    r"^(?:我)?(?:再)?(?:想想|想一想|考虑考虑|考虑一下|琢磨一下)|再说吧?$|^(?:算了|随便|不知道|不确定|"
    r"看情况|等等|稍等|等一下|回头再说)",
    flags=_I,
)

# A statement worth keeping is about the user or their world: it says who (I, my, we, 我, 我们,
# the user's people and things) or names something specific (a number, a name, a time).
# A clause with neither ("下一个问题", "hold that thought", "不是这样的") is talk, not a fact.
_I_WORDS = r"i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|us|our|ours"
ABOUT_SOMEONE = _rx(
    rf"\b(?:{_I_WORDS}|the\s+user)\b",
    r"我|咱|用户|老公|老婆|妻子|丈夫|爱人|对象|男朋友|女朋友|女儿|儿子|孩子|宝宝|爸|妈|父亲|母亲|爷爷|奶奶|"
    r"外公|外婆|哥|姐|弟|妹|朋友|同事|老板|领导|上司|经理|团队|公司|项目|部门|家里|猫|狗",
    # a habit said without its subject, as Chinese often does ("下午也会喝一杯咖啡")
    r"(?:也|还|平时|平常|一般|通常|经常|总是|每天|每周|每晚|早上|上午|下午|晚上|周末)(?:都|也|会|要|常|在)?"
    r"(?:会|喝|吃|去|用|做|看|跑|写|学|玩|练|听|上)",
    # a habit given up or changed, said without its subject ("不跑步了，改游泳")
    r"(?<![要想会能])不再?(?:跑|游|喝|吃|抽|用|玩|练|学|打|弹|画|写|做)\S{0,4}?了|"
    r"改(?:喝|吃|用|学|练|玩|打|游|跑|骑|开)",
    flags=_I,
)
# The speaker: "I", "my", "we", "我", "咱们"; "us" only as a word ("US" is a country).
FIRST_PERSON = _rx(
    rf"\b(?:{_I_WORDS}|we'd)\b",
    r"我|咱",
    flags=_I,
)
# A reaction to the listener or to what they shared: their news praised, pitied or agreed
# with ("You put so much into it", "That photo's amazing", "Must have been tough for you").
_PRAISE = (
    r"(?:so\s+|really\s+|very\s+|such\s+an?\s+|truly\s+|super\s+|pretty\s+)*"
    r"(?:great|amazing|awesome|cool|nice|beautiful|lovely|wonderful|stunning|incredible|"
    r"fantastic|gorgeous|impressive|inspiring|peaceful|calming|sweet|cute|fun|adorable|"
    r"exciting|interesting|hilarious|funny|brave|powerful|special|tough|hard|scary|sad|"
    r"awful|terrible|rough|traumatizing|heartwarming|relaxing|fascinating|touching|"
    r"perfect|epic|neat|brilliant|wild|crazy|huge|big\s+deal|a\s+great\s+\w+)\b"
)
REACTION = _rx(
    r"^(?:you|your|you're|you've|you'll|y'all|ya)\b",
    r"\b(?:for|to|with|about|of)\s+(?:you|you\s+guys|y'all)\s*[!.~]*$",
    # "That bowl is gorgeous", "Sounds fun"; "It's …" only when it is the listener's
    # ("It's great that you …"): "It was inspiring, so many came" tells what the speaker saw.
    r"^(?:(?:that|this|those|these)(?:'s|\s+(?:\w+\s+){0,3}?(?:is|was|are|were|sounds?|"
    r"looks?|seems?))|(?:that|this)\s+(?:\w+\s+){0,2}?\w+'s|sounds?|looks?|seems?)\s+"
    r"(?:like\s+(?:a|an|so|such)\s+)?" + _PRAISE,
    r"^it(?:'s|\s+(?:is|was))\s+" + _PRAISE + r".*\b(?:you|your|y'all)\b",
    r"^(?:glad|so\s+glad|happy|so\s+happy|proud|sorry|cool|nice|great|awesome|amazing)"
    r"\s+(?:that\s+)?(?:you|y'all|to\s+hear|for\s+you|of\s+you)\b",
    r"^(?:must\s+(?:have\s+been|be)|what\s+an?|how)\s+" + _PRAISE,
    r"^(?:你|您)(?:的\S{1,8}?)?(?:真|太|好|也太|可真|很|挺|做得|画得|说得|拍得|写得)",
    r"^(?:这|那)(?:个|张|幅|只|些|件|篇)?\S{0,8}?(?:看起来|听起来|看上去)(?:真|太|好|很|挺)?"
    r"(?:好看|漂亮|可爱|棒|不错|有意思|有趣|厉害|美|酷)",
    flags=_I,
)
SPECIFIC = re.compile(
    # a Latin word starts once, where its run starts: a long run is scanned once, not per letter
    rf"\d|(?<=[\w,;:] )[A-Z][\w.+#-]*|(?<![A-Za-z])[A-Za-z]{{2,}}(?=[^A-Za-z]*[{CJK}])"
    rf"|(?<=[{CJK}])\s*[A-Za-z]{{2,}}"
    # a count in words ("Sprints are now three weeks long"), not of things just shown
    # ("Those two functions look fine")
    r"|(?i:(?<!those\s)(?<!these\s)(?<!the\s)"
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+[a-z]+s\b)"
)

# -- Layer and time cues ---------------------------------------------------------------

PROFILE_CUE = _rx(
    r"我叫|我的名字|叫我|我是(?!说|在|不是)|我(?:现在|目前)?住|我家在|我老家|我来自|搬(?:到|去|来)|"
    r"我(?:现在|目前)?在\S{1,12}(?:工作|上班|任职|实习|读书|上学)|跳槽|入职|"
    r"我的(?:工作|职业|职位|公司|生日|母语|邮箱|专业)|我(?:从事|就职)|(?<![可热])(?:喜欢|爱)|"
    r"偏好|偏爱|讨厌|我(?:平时|一般|通常|经常|总是|习惯|每天|每周)|习惯|"
    r"我(?:也|还)?(?:会|懂|熟悉|擅长|精通)(?:说|讲|用)?\s*[A-Za-z]|我(?:也|还)?会(?:说|讲)|"
    r"过敏|我吃素|我\S{0,2}\d+岁",
    r"\b(?:my\s+name\s+is|call\s+me|i'm\s+called|i\s+(?:live|am\s+living|'m\s+living|reside)\b|"
    r"i(?:'m|\s+am)\s+from|i\s+(?:moved|relocated)\s+to|i\s+work\s+(?:at|for|as|in)|"
    r"i(?:'m|\s+am)\s+an?\s+(?:\w+\s+)?(?:engineer|developer|programmer|designer|manager|"
    r"teacher|doctor|student|nurse|lawyer|researcher|scientist|analyst|writer|consultant)|"
    r"my\s+(?:job|role|title|employer|birthday|native\s+language)|"
    r"i\s+(?:really\s+|also\s+)?(?:prefer|like|love|enjoy|hate|dislike)|my\s+favou?rite|"
    r"i\s+(?:usually|always|often|never|tend\s+to)|i\s+(?:also\s+)?speak|"
    r"i(?:'m|\s+am)\s+(?:allergic|vegetarian|vegan)|i(?:'m|\s+am)\s+\d+\s+years\s+old|"
    r"i\s+(?:also\s+)?know\s+[A-Z])",
    # a self-introduction by name ("I'm Dana", "I am Dana Smith"): the whole statement
    r"(?-i:^(?:I'm|I\s+am)\s+[A-Z][a-z'-]+(?:\s+[A-Z][a-z'-]+){0,2}[.!]?$)",
    flags=_I,
)
PROACTIVE = _rx(
    r"明天|后天|今晚|下周|下星期|下礼拜|下个?月|明年|下次|周末|这周|本周|月底|年底|"
    r"(?:周|星期|礼拜)[一二三四五六日天]|(?<!\d)\d+月\d+[日号]|(?<!\d)\d+号|\d{1,2}[点:：]\d{0,2}|"
    r"截止|deadline|到期|计划|打算|准备|将要|即将|要去|要搬|提醒我|记得|别忘了|待会|过几天|回头",
    r"\b(?:tomorrow|tonight|next\s+(?:week|month|year|time|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)|this\s+(?:weekend|week|monday|tuesday|wednesday|thursday|friday)|"
    r"on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|deadline|due|"
    r"plan(?:ning)?\s+to|going\s+to|will|remind\s+me|don't\s+forget|meeting|appointment|"
    r"scheduled|upcoming|at\s+\d{1,2}(?::\d{2})?\s*(?:am|pm)|(?:on|by)\s+(?:jan|feb|mar|apr|may|jun|"
    r"jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.?\s+\d{1,2})\b|'ll\b",
    flags=_I,
)
# A planned change does not change the attribute yet ("下个月要搬去北京"). "以后" is "later"
# only where it opens a clause ("以后我想学日语", "我以后…") or leads to a wish or an intent
# ("毕业以后我想去北京"); after an event it is "since" ("搬家以后我每天骑车上班" is true now).
FUTURE = _rx(
    r"打算|计划|准备|将要|即将|想要|要(?:把|搬|换|去|改|跳槽)|下(?:周|星期|个?月)|明年|过几天",
    r"(?<![^\s，,；;。！!：:])(?:我们?|咱们)?以后|以后\s*(?:我们?|咱们)?\s*(?:想|要|打算|会|准备|计划)",
    r"\b(?:plan(?:ning)?\s+to|going\s+to|will|intend\s+to|thinking\s+about|might|"
    r"next\s+(?:week|month|year))\b|'ll\b",
    flags=_I,
)
NEGATION = _rx(
    r"不再|不(?!错|少|久|同|仅|过|但|断|然|客气)|没有?|未(?!来)|别(?![人的])",
    r"\b(?:not|never|no\s+longer|no|anymore)\b|n't\b",
    flags=_I,
)

# Stored memories may say "用户…" / "the user…": compared as first-person statements.
THIRD_PERSON = [
    (re.compile(r"用户的"), "我的"),
    (re.compile(r"^(?:该)?用户"), "我"),
    (re.compile(r"\b(?:the\s+)?user's\b", _I), "my"),
    (re.compile(r"\bthe\s+user\s+is\b", _I), "I am"),
    (re.compile(r"\bthe\s+user\b", _I), "I"),
    (re.compile(r"\bI\s+(live|work|like|love|prefer|speak|know|use|enjoy)s\b"), r"I \1"),
    (re.compile(r"\bI\s+has\b"), "I have"),
]


def first_person(text: str) -> str:
    """A stored "用户住在上海" / "The user lives in Berlin" read as the user's own words."""
    for pattern, repl in THIRD_PERSON:
        text = pattern.sub(repl, text)
    return text


# A count in Chinese numerals ("三只猫", "两次"), read from the start of its run (from each of
# its characters a failing lookahead would scan the run again), never a day ("周三") or
# "these days" ("这两天").
CN_NUMBER = (
    r"(?<![周期拜上下这那哪每零〇一二两三四五六七八九十百])[零〇一二两三四五六七八九十百]+"
    r"(?=[个只位名人本台次年岁天周月号点块元件条张项种口套间辆倍%]|公里|小时|分钟)"
)

# -- Similarity lexicons ----------------------------------------------------------------

# Words that carry no topic: removed before bigram / word-overlap comparisons.
FILLERS = _rx(
    r"现在|目前|已经|其实|真的|非常|特别|一直|也|还|都|很|了(?=$|[\s，,。.!！;；])",
    r"\b(?:the|a|an|now|currently|really|also|too|still|just|actually|very|anymore|as\s+well)\b",
    flags=_I,
)
CHANGE_MARKERS = _rx(
    r"改成|改为|改到|变成|升级到|升级为|升到|涨到|涨了|降到|增加到|减少到|增至|减至|调整为|调到|换成|扩到",
    r"\b(?:upgraded|updated|changed|increased|decreased|grew|dropped|went\s+up|went\s+down|moved|"
    r"bumped|raised|lowered|switched|migrated)\b",
    flags=_I,
)
# A CJK bigram holding one of these is grammar, not topic.
STOP_CHARS = set("我你他她它的了是在有也都很就还和与及这那个们吗呢吧啊用要会把被给")
STOP_WORDS = _names(
    "i|me|my|mine|we|us|our|you|your|he|she|it|its|they|them|their|is|am|are|was|were|be|been|"
    "being|have|has|had|do|does|did|to|of|in|on|at|by|for|from|with|about|as|and|or|but|if|so|"
    "that|this|these|those|there|here|not|no|don't|doesn't|didn't|can|could|would|should|will|"
    "use|uses|used|using|get|got|go|went|up|into|than|then|what|which|who"
)
CITIES = (
    "北京|上海|广州|深圳|杭州|成都|南京|武汉|西安|重庆|天津|苏州|长沙|厦门|青岛|大连|郑州|合肥|"
    "宁波|无锡|济南|沈阳|哈尔滨|昆明|福州|香港|台北|东京|纽约|伦敦|巴黎|柏林|新加坡|硅谷|旧金山|西雅图"
)

# -- Value and slot canonical forms -------------------------------------------------------


def _lexicon(groups: dict[str, str]) -> dict[str, str]:
    """``{"lang": "python|java"}`` → ``{"python": "lang", "java": "lang"}``."""
    return {word: name for name, words in groups.items() for word in words.split("|")}


_SLOT_ALIASES = _lexicon(
    {
        "lang": "语言|编程语言|开发语言|language|programming language",
        "colour": "颜色|color|colour",
        "drink": "饮料|饮品|drink|beverage",
        "editor": "编辑器|editor|ide",
        "food": "食物|菜|美食|food|dish|cuisine",
        "meeting": "会|开会|会议|meeting|meetings",
        "standup": "站会|晨会|早会|standup|standups|stand-up",
        "bedtime": "睡觉|go to bed|sleep",
        "waking": "起床|wake up|get up",
        "sync": "周会|例会|sync|syncs|weekly sync",
        "deadline": "截止日期|截止时间|交付日期|deadline|deadlines|due date",
        "postgresql": "postgres|postgresql|pg",
        "node": "node|nodejs|node.js",
        "go": "golang",
    }
)
_VALUE_CATEGORY = _lexicon(
    {
        "lang": "python|java|go|golang|rust|c|c++|c#|javascript|js|typescript|ts|kotlin|swift|ruby|"
        "php|scala|haskell|elixir|lua|julia|dart",
        "colour": "red|blue|green|yellow|black|white|purple|orange|pink|grey|gray|"
        "红色|蓝色|绿色|黄色|黑色|白色|紫色|橙色|粉色|灰色",
        "drink": "coffee|tea|咖啡|茶|奶茶|可乐",
        "editor": "vim|neovim|emacs|vscode|记事本",
        "theme": "dark mode|light mode|dark theme|light theme|深色模式|浅色模式",
        "indent": "tabs|spaces|tab|space",
    }
)
_PRODUCTS = _names(
    "python|java|node|go|postgresql|mysql|redis|ubuntu|debian|centos|kubernetes|k8s|react|vue|"
    "angular|django|rails|ruby|php|rust|gcc|clang|swift|kotlin|elasticsearch|mongodb|ios|android|"
    "windows|macos"
)
_VALUE_EDGES = re.compile(
    r"^(?:现在|目前|已经|now|currently|is|are)\s*|(?<!\s)\s*(?:了|啦|呢|吧|的|市|now|too|anymore|"
    r"as\s+well|these\s+days|instead)$",
    _I,
)
_TIME_FORMS = [
    (re.compile(r"星期|礼拜"), "周"),
    (re.compile(r"周天"), "周日"),
    (re.compile(r"^每个?"), ""),
    (re.compile(r"(?<=day)s$"), ""),
    (re.compile(r"(?<!\s)\s+(?=am|pm)"), ""),
    (re.compile(r":00(?=am|pm)"), ""),
]


def clean_value(value: str) -> str:
    """Canonical form of an attribute value: lower case, no edge particles or fillers."""
    v = unicodedata.normalize("NFKC", value).lower().strip(" \t，,。.!！;；:：'\"")
    while (shorter := _VALUE_EDGES.sub("", v).strip(" ，,。.!！")) != v:
        v = shorter
    for pattern, repl in _TIME_FORMS:
        v = pattern.sub(repl, v)
    return re.sub(r"\s+", " ", v)


def canonical_slot(slot: str | None, value: str) -> str | None:
    """Which favourite / product / meeting: aliases folded, else guessed from the value."""
    if slot:
        s = re.sub(r"\s+", " ", slot.lower().strip())
        s = re.sub(r"^开(?=会)|^(?:daily|weekly)\s+(?=standup|stand-up)|^每日", "", s)
        s = _SLOT_ALIASES.get(s, s)
        return re.sub(r"(?<=[a-z]{3}[^s])s$", "", s)  # "releases" is the slot of "release"
    return _VALUE_CATEGORY.get(value)


def _is_product(slot: str | None, value: str) -> bool:
    return slot is not None and slot not in STOP_WORDS and (slot in _PRODUCTS or "." in value)


# Things a person has one of at a time: the value names the kind, so the pattern does not
# need to ("我现在用华为 Mate 60" is a phone, "bought a Tesla Model 3" a car).
_VEHICLE = (
    r"(?i:特斯拉|比亚迪|蔚来|理想|小鹏|问界|极氪|小米\s?SU7|宝马|奔驰|奥迪|大众|丰田|本田|日产|马自达|"
    r"福特|别克|雪佛兰|吉利|红旗|保时捷|沃尔沃|凯迪拉克|雷克萨斯|"
    r"Tesla|Honda|Toyota|BMW|Mercedes(?:-Benz)?|Audi|Volkswagen|VW|Ford|Chevy|Chevrolet|Nissan|"
    r"Mazda|Subaru|Hyundai|Kia|Volvo|Porsche|Jeep|Lexus|Rivian|Polestar|BYD|NIO|Civic|Corolla|"
    r"Camry|Prius|Accord|Model\s?[3SXY])(?:\s?(?:Model\s?[3SXY]|[A-Z0-9][\w-]*|汉|唐|秦|宋|元|海豹|海鸥)){0,2}"
)
_PHONE = (
    r"(?i:iPhone(?:\s?\d{1,2})?(?:\s?(?:Pro|Plus|Max|mini))*|华为\s?(?:Mate|P|nova|Pura)\s?\d+(?:\s?Pro)?|"
    r"(?:华为|小米|红米|荣耀|一加|OPPO|vivo|OnePlus)\s?[A-Za-z]*\s?\d+\w*(?:\s?(?:Pro|Ultra))?|"
    r"Pixel\s?\d+\w*(?:\s?Pro)?|Galaxy\s?[SZA]\d+\w*(?:\s?(?:Ultra|\+))?|安卓手机|苹果手机)"
)
_COMPUTER = (
    r"(?i:MacBook(?:\s?(?:Air|Pro))?(?:\s?M\d\w*)?|ThinkPad(?:\s?[A-Z]\d+\w*)?|Surface(?:\s?\w+)?|"
    r"XPS(?:\s?\d+)?|Mac\s?mini|Mac\s?Studio|iMac|拯救者\w*|ROG\s?\w+)"
)
_I_NOW = (
    r"(?:\bI|我|(?<=[，,])\s*|^)(?:\s*(?:now|currently|still|just|recently|also|usually"
    r"|现在|目前|已经|还|刚|也|平时|平常|一直|日常))*\s*"
)


def _owned(kind: str) -> tuple[str, ...]:
    return (
        rf"(?i:{_I_NOW}(?:drive|own|use|have|got|bought|purchased|leased|switched\s+to|"
        rf"upgraded\s+to|开|用|买了|换了|提了|入手了|换成了?|升级到了?)\s*(?:(?:a|an|the|my|的是|一台|一辆|一部|"
        rf"新的?|二手的?|new|used|second-hand)\s*)*(?:\d{{4}}\s*年?款?的?\s*)?)(?P<value>{kind})",
        rf"(?i:\band\s+(?:then\s+)?(?:bought|got|purchased)\s+(?:a|an|the)?\s*(?:new\s+|used\s+)?"
        rf"(?:\d{{4}}\s+)?)(?P<value>{kind})",
        rf"(?i:(?:\bmy\s+(?:car|phone|laptop|computer|ride)\s+is(?:\s+now)?\s+(?:a|an)?|"
        rf"我(?:平时|平常|现在|目前|一直|日常)?(?:的|用的|开的)(?:车|手机|电脑|笔记本)(?:现在)?(?:是|换成了?))\s*(?:\d{{4}}\s*年?款?的?\s*)?)"
        rf"(?P<value>{kind})",
    )


# -- The attribute table ------------------------------------------------------------------

ZH_TIME = (
    r"(?:每个?)?(?:周|星期|礼拜)[一二三四五六日天](?:上午|下午|晚上)?(?:\d{1,2}[点:：](?:\d{1,2}|半)?)?"
    r"|(?:上午|下午|晚上|早上)?\d{1,2}[点:：](?:\d{1,2}|半)?|(?:明天|后天|今天)(?:上午|下午|晚上)?"
    r"|\d{1,2}月\d{1,2}[日号]"
)
EN_TIME = (
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}"
    r"|noon|midnight|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.?\s+\d{1,2}(?:st|nd|rd|th)?"
)
_ZH_EVENT = (
    r"站会|例会|周会|晨会|早会|会议|开会|评审会?|面试|组会|部署|发布|上线日|睡觉|起床"
    r"|截止日期|截止时间|交付日期|上线时间|课|会"
)
_EN_EVENT = (
    r"(?:daily\s+|weekly\s+)?(?:stand-?ups?|meetings?|syncs?|1:1s?|one-on-ones?|reviews?|retros?|"
    r"classe?s?|calls?|lessons?|deadlines?|due\s+date|releases?|launch|deploys|deployments?|"
    r"go\s+to\s+bed|sleep|wake\s+up|get\s+up)"
)
_ZH_VAL = r"(?P<value>[^，,。！!？?；;\s][^，,。！!？?；;]*)"
_ZH_PLACE = (
    rf"(?P<value>[{CJK}A-Za-z]{{2,12}}?)(?=了|啦|市|的|工作|上班|生活|定居|$|[\s，,。！!；;])"
)
_ZH_NAME = rf"(?P<value>[{CJK}A-Za-z·]{{1,8}}?)(?=了|啦|$|[\s，,。！!；;])"
_EN_PROPER = r"(?P<value>(?!(?:a|an|the)\b)[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*)*)"
_EN_PHRASE = (
    r"(?P<value>[\w+#'.-]+(?:\s+[\w+#'.-]+){0,3}?)(?=\s*(?:$|[,;!?]|\.(?:\s|$)|\s+(?:now|these\s+"
    r"days|too|anymore|as\s+well|because|since|but|over|than|instead)\b))"
)
ZH_ROLE = _ZH_ROLE = (
    r"工程师|程序员|开发|设计师|产品经理|经理|架构师|老师|教师|医生|护士|律师|学生|研究员|研究生|博士生?|"
    r"分析师|会计|记者|作家|销售|运营|总监|主管|CTO|CEO|创始人"
)
EN_ROLE = _EN_ROLE = (
    r"engineer|developer|programmer|designer|manager|teacher|doctor|nurse|lawyer|student|"
    r"researcher|scientist|analyst|writer|consultant|architect|founder|ceo|cto"
)


@dataclass(frozen=True)
class Attribute:
    """One row of the table. Patterns are tried in order; the first that matches wins."""

    key: str
    update_type: str
    patterns: tuple[re.Pattern[str], ...]
    multi: bool = False
    """Values accumulate (likes, skills): a new value supplements the old one."""
    stateful: bool = False
    """A state of the user: a planned change ("下个月要搬去北京") does not change it yet."""
    needs_slot: bool = False
    """Only comparable when both sides name the slot (else a missing slot matches any)."""
    accept: Callable[[str | None, str], bool] | None = None


def _row(key: str, update_type: str, *patterns: str, **kw: Any) -> Attribute:
    return Attribute(key, update_type, tuple(re.compile(p) for p in patterns), **kw)


ATTRIBUTES: tuple[Attribute, ...] = (
    _row(
        "name",
        "name_change",
        rf"(?:改名|更名)(?:叫|为|成)了?\s*{_ZH_NAME}",
        rf"(?:我|本人)(?:的名字)?(?:现在)?叫\s*{_ZH_NAME}",
        rf"我的名字(?:现在)?是\s*{_ZH_NAME}",
        rf"(?i:\bmy\s+name\s+is(?:\s+now)?|\bcall\s+me|\bI(?:'m|\s+am)\s+called|\bI\s+(?:have\s+)?"
        rf"changed\s+my\s+name\s+to|\bmy\s+name\s+(?:has\s+)?changed\s+to)\s+{_EN_PROPER}",
        stateful=True,
    ),
    _row(
        "residence",
        "location_change",
        rf"(?:住在|住|定居在?|生活在|搬到了?|搬去了?|搬来了?|搬家到了?|家在)\s*{_ZH_PLACE}",
        rf"(?i:\bI\s+(?:now\s+|currently\s+|still\s+)?(?:live|am\s+living|'m\s+living|reside)\s+in"
        rf"|\bI(?:'m|\s+am)\s+(?:now\s+)?based\s+in|\bmy\s+home\s+is\s+in"
        rf"|(?:moved|relocated|move|relocate|moving|"
        rf"relocating)\s+to)\s+{_EN_PROPER}",
        stateful=True,
    ),
    _row(
        "work_city",
        "location_change",
        rf"在(?P<value>{CITIES})(?:工作|上班)",
        rf"(?:调到|调去|转到|派到|外派到|派驻)(?P<value>{CITIES})",
        rf"(?i:\bI\s+(?:now\s+|currently\s+)?work\s+in)\s+{_EN_PROPER}",
        rf"(?i:\bI(?:'m|\s+am)?\s+(?:now\s+|currently\s+)?work(?:ing)?\s+(?:remotely\s+)?"
        rf"(?:from|out\s+of)\s+(?:our\s+|the\s+)?){_EN_PROPER}",
        stateful=True,
    ),
    _row(
        "employer",
        "job_change",
        r"(?:跳槽到|跳槽去|入职|加入)了?\s*(?P<value>[^\s，,。！!；;了]{2,16})",
        rf"我(?:现在|目前|已经)?在(?!(?:{CITIES})(?:工作|上班))\s*(?P<value>[^\s，,。！!；;]{{2,16}}?)\s*"
        r"(?:工作|上班|任职|实习)",
        r"我的?(?:公司|单位|东家)是\s*(?P<value>[^\s，,。！!；;了]{2,16})",
        rf"我(?:现在|目前|已经)?在\s*(?P<value>[^\s，,。！!；;在]{{2,16}}?)\s*(?:做|当|担任)"
        rf"[{CJK}A-Za-z]{{0,8}}?(?:{_ZH_ROLE})",
        rf"(?i:\bI\s+(?:now\s+|currently\s+|still\s+)?(?:work|am\s+working|'m\s+working)\s+(?:at|for)"
        rf"|\bI\s+(?:have\s+|just\s+|recently\s+)?joined|\bI\s+(?:have\s+)?(?:started|got)\s+a\s+"
        rf"(?:new\s+)?job\s+at|\bmy\s+employer\s+is)\s+{_EN_PROPER}",
        # where the user is now, said after leaving a job ("I left Acme, now I'm at Globex",
        # "我从阿里离职了，现在在字节跳动"): "now" with a departure names the new employer
        rf"(?i:\bnow\s+I(?:'m|\s+am)|\bI(?:'m|\s+am)\s+now)\s+(?:at|with)\s+{_EN_PROPER}",
        # the employer said with the role ("I'm a data scientist at Globex")
        rf"(?i:\bI(?:'m|\s+am)\s+(?:now\s+)?(?:an?|the)\s+(?:[A-Za-z-]+\s+){{0,3}}?(?:{_EN_ROLE})s?"
        rf"\s+(?:at|for|with))\s+{_EN_PROPER}",
        r"(?:离职|辞职|跳槽)了?[，,\s]*(?:我)?(?:现在|目前|如今)(?:在|去了|到了)\s*"
        r"(?P<value>[^\s，,。！!；;]{2,16}?)(?:工作|上班)?(?=$|[\s，,。！!；;了])",
        stateful=True,
    ),
    _row(
        "job",
        "role_change",
        rf"我(?:现在|目前|已经)?(?:是|当|做|成为|成了|转行做|转行当|转岗做|转岗为)了?(?:一名|一个|一位|个|名)?\s*"
        rf"(?P<value>[{CJK}A-Za-z ]{{0,10}}?(?:{_ZH_ROLE}))",
        # the role said with the employer ("我在阿里巴巴做产品经理", "I work at Acme as a data
        # engineer"): one statement, two slots, so a new employer keeps the role
        rf"我(?:现在|目前|已经)?在\s*[^\s，,。！!；;在]{{2,16}}?\s*(?:做|当|担任)(?:一名|一个|一位)?\s*"
        rf"(?P<value>[{CJK}A-Za-z ]{{0,10}}?(?:{_ZH_ROLE}))",
        rf"(?i:\bI\s+(?:now\s+|currently\s+|still\s+)?work\s+(?:at|for)\s+[^,;.]{{1,40}}?\s+as\s+"
        rf"(?:an?|the))\s+(?P<value>(?:[A-Za-z-]+\s+){{0,3}}?(?i:{_EN_ROLE})s?)\b",
        rf"我的(?:职位|职业|岗位|工作)是\s*{_ZH_VAL}",
        rf"(?i:\bI(?:'m|\s+am)\s+(?:now\s+|currently\s+)?(?:an?|the)|\bI\s+(?:now\s+)?work\s+as\s+"
        rf"(?:an?|the)|\bI\s+(?:became|have\s+become)\s+(?:an?|the))\s+"
        rf"(?P<value>(?:[A-Za-z-]+\s+){{0,3}}?(?i:{_EN_ROLE})s?)\b",
        rf"(?i:\bmy\s+(?:job|role|title|position)\s+is(?:\s+now)?)\s+(?:an?\s+)?{_EN_PHRASE}",
        stateful=True,
    ),
    _row(
        "manager",
        "manager_change",
        rf"我的?(?:新|现在的)?(?:领导|老板|上司|经理|主管|导师)(?:现在|换成了?)?(?:是|叫)\s*{_ZH_NAME}",
        rf"(?P<value>[{CJK}A-Za-z·]{{1,8}}?)(?:现在)?是我的?新?(?:领导|老板|上司|经理|主管|导师)",
        rf"(?i:\bmy\s+(?:new\s+)?(?:manager|boss|team\s+lead|supervisor|mentor|advisor)\s+is"
        rf"(?:\s+now)?)\s+{_EN_PROPER}",
        # a name of a few words, from a word start: an open run of capitals was quadratic
        r"(?<![\w'&.-])(?P<value>(?!(?:a|an|the)\b)[A-Z][\w'&.-]*(?:\s+[A-Z][\w'&.-]*){0,2})"
        r"\s+(?i:is|has\s+become|became)\s+(?i:my|our)\s+(?i:new\s+)?"
        r"(?i:manager|boss|team\s+lead|supervisor|mentor|advisor)\b",
        stateful=True,
    ),
    _row(
        "age",
        "age_change",
        r"(?P<slot>我|我的?[^\s，,。\d]{1,3}?)(?:今年|现在|已经|刚|上个?月|这个?月|上周|昨天|前天|去年)?"
        r"刚?满?(?P<value>\d{1,3})岁",
        r"(?i:(?P<slot>\bI|\bmy\s+[a-z]+)(?:'m|\s+am|\s+is|'s)\s+(?:now\s+)?)(?P<value>\d{1,3})"
        r"(?=\s+years?\s+old|\s*yo\b)",
        r"(?i:(?P<slot>\bI|\bmy\s+[a-z]+)\s+(?:just\s+)?turned\s+)(?P<value>\d{1,3})\b",
        stateful=True,
        needs_slot=True,
    ),
    _row(
        "favourite",
        "preference_change",
        rf"最(?:喜欢|爱)的(?P<slot>[{CJK}A-Za-z]{{1,6}}?)(?:现在)?(?:是|就是|变成了?|改成了?|换成了?)了?\s*{_ZH_VAL}",
        rf"最(?:喜欢|爱)(?:用|吃|喝|看|听|玩|的是)?\s*{_ZH_VAL}",
        rf"(?i:\bmy\s+(?:favou?rite|preferred))\s+(?P<slot>[A-Za-z]+(?:\s+[A-Za-z]+)?)\s+"
        rf"(?i:is|are|has\s+changed\s+to|changed\s+to)\s+(?:now\s+)?{_EN_PHRASE}",
        needs_slot=True,
    ),
    _row(
        "preference",
        "preference_change",
        rf"(?:更(?:喜欢|爱)|偏好|偏爱|首选)(?:用|吃|喝|看|听|玩|的是)?\s*{_ZH_VAL}",
        rf"(?i:\bI\s+(?:now\s+|still\s+|really\s+)?prefer)\s+{_EN_PHRASE}",
        needs_slot=True,
    ),
    _row(
        "likes",
        "complement",
        rf"(?<![最更可热恋偏])(?:喜欢|爱)(?:吃|喝|看|听|玩|用|上了)?\s*{_ZH_VAL}",
        rf"(?i:\bI\s+(?:really\s+|also\s+|still\s+|do(?:n't|\s+not)\s+|no\s+longer\s+)?"
        rf"(?:like|love|enjoy)s?)\s+{_EN_PHRASE}",
        multi=True,
    ),
    _row(
        "skill",
        "complement",
        rf"我(?:也|还)?(?:会|懂|熟悉|掌握|擅长|精通)(?:用|写|说|讲)?\s*"
        rf"(?P<value>[A-Za-z][\w+#.-]*|[{CJK}]{{1,4}}?(?:语|文|话))",
        r"(?i:\bI\s+(?:also\s+|can\s+)?(?:speak|know|code\s+in|write))\s+(?P<value>[A-Z][\w+#.-]*)",
        multi=True,
    ),
    _row(
        "schedule",
        "schedule_change",
        rf"(?P<slot>{_ZH_EVENT})[^，,。；;]{{0,6}}?(?:改到|改成|改为|改在|推迟到|提前到|挪到|换到|调到)了?\s*"
        rf"(?P<value>{ZH_TIME})",
        rf"(?P<value>{ZH_TIME})的?要?(?:开|有|上)?(?P<slot>{_ZH_EVENT})",
        rf"(?P<slot>{_ZH_EVENT})(?:时间)?(?:是|在|定在|安排在)\s*(?P<value>{ZH_TIME})",
        rf"(?i)(?P<slot>{_EN_EVENT})\b[^,;.]{{0,25}}?\b(?:moved|changed|rescheduled|pushed|"
        rf"shifted|postponed)\s+to\s+(?:on\s+|at\s+)?(?P<value>{EN_TIME})",
        rf"(?i)(?P<slot>{_EN_EVENT})\b[^,;.]{{0,25}}?\b(?:at|on|is|around|by)\s+(?:now\s+)?(?:at\s+|on\s+)?"
        rf"(?:every\s+)?(?P<value>{EN_TIME})",
    ),
    _row(
        "version",
        "version_change",
        r"(?<![\w.])(?P<slot>[A-Za-z][A-Za-z+#.-]{0,30}[A-Za-z+#])\s*(?:v(?=\d))?"
        r"(?P<value>\d+(?:\.\d+)*)(?![\d.]*\s*(?:%|am\b|pm\b))",
        accept=_is_product,
    ),
    _row("vehicle", "vehicle_replaced", *_owned(_VEHICLE), stateful=True),
    _row("phone", "device_replaced", *_owned(_PHONE), stateful=True),
    _row("computer", "device_replaced", *_owned(_COMPUTER), stateful=True),
    _row(
        "diet",
        "diet_change",
        r"我(?:现在|目前|已经)?(?:不再|不)?(?P<value>吃素|素食)",
        r"(?i:\bI(?:'m|\s+am)\s+(?:now\s+|still\s+|no\s+longer\s+|not\s+)?(?:a\s+)?)"
        r"(?P<value>vegetarian|vegan|pescatarian)",
        stateful=True,
    ),
)


@dataclass(frozen=True)
class Hit:
    """One attribute found in a text: which row, which slot, which value."""

    attribute: Attribute
    slot: str | None
    value: str


def find_attributes(text: str) -> list[Hit]:
    """Every attribute row that some pattern fills in ``text`` (first matching pattern per row)."""
    hits: list[Hit] = []
    for attr in ATTRIBUTES:
        for pattern in attr.patterns:
            found = []
            for m in pattern.finditer(text):
                value = clean_value(m["value"])
                slot = canonical_slot(m.groupdict().get("slot"), value)
                if value and (attr.accept is None or attr.accept(slot, value)):
                    found.append(Hit(attr, slot, value))
            if found:
                hits.extend(found)
                break
    return hits


# -- "A → B" replacements -----------------------------------------------------------------

TERM_EDGES = re.compile(
    r"^(?:用|使用|the|our|my)\s+|(?<!\s)\s+(?:last\s+\w+|now|anymore|yesterday|today)$", _I
)
_ZH_SPAN = r"[^，,。；;]"
# A replaced term is a name, not a paragraph: bounding the lazy spans keeps each start of
# a failing match short, so a text of repeated cues ("把把把…") stays linear.
_TERM = rf"{_ZH_SPAN}{{1,60}}?"
_EN_TERM = r"[\w.+# -]{1,60}?"
REPLACEMENTS = tuple(
    re.compile(p)
    for p in (
        rf"把\s*(?P<old>{_TERM})\s*(?:换成|改成|替换成|替换为|改为|迁移到|迁到|切换到|切到|升级到|换到)了?"
        rf"\s*(?P<new>{_ZH_SPAN}+)",
        rf"(?:从|由)\s*(?P<old>{_TERM})\s*(?:换成|改成|迁移到|迁到|切换到|切到|换到|转到|调到|调去|改为|升级到|"
        rf"升级为|改用|换为)了?\s*(?P<new>{_ZH_SPAN}+)",
        rf"不(?:再)?(?:用|使用)\s*(?P<old>{_TERM})\s*了?(?:\s*[，,]?\s*(?:改用|换成|换用|改成|现在用|用)"
        rf"\s*(?P<new>{_ZH_SPAN}+))?(?:$|[，,。；;])",
        rf"用\s*(?P<new>{_TERM})\s*(?:替换|替代|取代|代替)了?\s*(?P<old>{_ZH_SPAN}+)",
        rf"(?P<old>[^，,。；;\s]{{1,20}}?)\s*(?:换成|替换成|换为|改成|改用)了\s*(?P<new>{_ZH_SPAN}+)",
        r"(?i:\b(?:switched|moved|migrated|changed|upgraded|updated|went|transitioned|converted)\b)"
        rf"(?:\s+[\w.+#-]+){{0,3}}?\s+(?i:from)\s+(?P<old>{_EN_TERM})\s+(?i:to)\s+(?P<new>[\w.+# "
        rf"-]+)",
        rf"(?i:\breplaced)\s+(?P<old>{_EN_TERM})\s+(?i:with)\s+(?P<new>[\w.+# -]+)",
        r"(?i:\b(?:no\s+longer|don't|do\s+not|stopped|quit))\s+(?i:us(?:e|ing))\s+"
        r"(?P<old>[\w.+#-]+(?:\s+[A-Z0-9][\w.+#-]*){0,4})(?:[,;]?\s*(?i:and\s+)?(?i:I\s+|we\s+)?(?i:now\s+)?"
        r"(?i:use|using|switched\s+to|moved\s+to)\s+(?P<new>[\w.+# -]+))?",
        r"(?i:\buse)\s+(?P<new>[\w.+#-]+(?:\s+[\w.+#-]+)?)\s+(?i:instead\s+of)\s+"
        r"(?P<old>[\w.+#-]+(?:\s+[\w.+#-]+)?)",
        # Starts at a word start and spans a few words: a run of capitalised words was
        # quadratic (every capital started a scan to the end of the run).
        r"(?<![\w.+#-])(?P<new>[A-Z][\w.+#-]*(?:\s+[A-Z][\w.+#-]*){0,4})\s+"
        r"(?i:replaced|has\s+replaced|replaces)\s+(?P<old>[\w.+#-]+(?:\s+[A-Z0-9][\w.+#-]*){0,4})",
    )
)

# "No longer X" without a new value: the old memory is retired by the new statement.
DEPARTURES = tuple(
    re.compile(p)
    for p in (
        r"(?:从|在)\s*(?P<old>[^\s，,。！!；;从在]{2,12}?)\s*(?:离职|辞职|毕业|退休)",
        r"(?:离开|卖掉|卖了|退掉|退了|戒掉|戒了|不再(?:吃|喝|用|玩|去|住在?|开|做))了?\s*"
        r"(?:我的|那辆|那台|那部)?\s*(?P<old>[^\s，,。！!；;了]{1,12})",
        r"(?i:\bsold)\s+(?i:my|the|our)\s+(?P<old>[\w.+#-]+(?:\s+[\w.+#-]+){0,2}?)"
        r"(?=\s+(?i:and|but|last|yesterday|because)\b|\s*[,.;!]|\s*$)",
        r"(?i:\b(?:quit|left|resigned\s+from))\s+(?i:my\s+job\s+at\s+)?"
        r"(?P<old>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3})",
        r"(?i:\b(?:quit|gave\s+up(?:\s+on)?|stopped))\s+"
        r"(?i:(?:drinking|eating|smoking|using|playing|doing|learning|studying)\s+)?"
        r"(?i:(?:the|my)\s+)?(?P<old>[A-Za-z][\w-]*)(?=\s*(?:[,.;!]|$|\s+(?:and|but|last|this|for)\b))",
        r"(?:和|跟)\s*(?P<old>[^\s，,。！!；;和跟]{1,8}?)\s*(?:分手|离婚|分开)",
        r"把\s*(?:我的|那辆|那台|那部|那个)?\s*(?P<old>[^\s，,。！!；;把]{1,12}?)\s*(?:卖了|卖掉了?|退了|退掉了?|"
        r"送人了|放弃了|戒了|戒掉了)",
        r"^(?P<old>[^\s，,。！!；;我]{1,8}?)\s*我?(?:已经|早就)?(?:放弃了|不学了|不练了|不玩了|不弹了|戒了)",
        # someone or something gone: "王总调走了", "橘子上个月走了"
        r"^(?P<old>[^\s，,。！!；;我他她它]{1,8}?)\s*(?:上个?月|去年|前段时间|前几天|最近|已经)?\s*"
        r"(?:被)?(?:调走|走|离职|辞职|退休|去世)了",
        r"放弃了?\s*(?P<old>[^\s，,。！!；;了]{1,8})",
        r"(?<![\w'-])(?P<old>[A-Z][\w'-]*)\s+and\s+I\s+(?:broke\s+up|split\s+up|separated|divorced|got\s+divorced)",
        r"(?i:\b(?:broke\s+up|split\s+up)\s+with|\bdivorced)\s+(?P<old>[A-Z][\w'-]*)",
        r"(?<![要想会能])不(?:再)?(?P<old>(?:跑|游|喝|吃|抽|用|玩|练|学|打|弹|画|写|做)[^\s，,。！!；;了]{0,4})了",
    )
)

# A switch that names only the new value ("我现在改喝拿铁了", "I switched to drinking tea"): it
# retires what the same verb held before.
SWITCHES = (
    re.compile(
        r"(?:改|换成|转而|开始改)(?P<verb>喝|吃|用|学|练|玩|打|抽|看|听|开|骑)了?\s*"
        r"(?P<new>[^\s，,。！!；;了]{1,12})"
    ),
    re.compile(
        r"(?i:\bswitched\s+to\s+)(?P<verb>drink|eat|us|play|learn|read|listen|watch|driv|rid)"
        r"(?i:ing)\s+(?P<new>[\w-]+(?:\s+[\w-]+)?)"
    ),
)

# A departure that says which slot it leaves, so the memory it retires can be found by slot.
LEFT_JOB = re.compile(
    r"离职|辞职|辞掉了?工作|被裁|(?i:\bquit\s+my\s+job|\bresigned\b|\bleft\s+my\s+job|\blaid\s+off)"
)

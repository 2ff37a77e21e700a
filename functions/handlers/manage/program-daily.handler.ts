import { runtimeFrom } from '../../composition'
import { makeProgramDailyHandler } from '../../http/routes/manage/program-daily.route'
import { programFiguresDeps } from '../../wiring/program-figures.deps'

/** Lambda's entry: the runtime and the route's deps are built once, at cold start. */
export const handler = makeProgramDailyHandler(programFiguresDeps(runtimeFrom(process.env)))
